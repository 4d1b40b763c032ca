// Wire types of the user service's organisation console API (`/console/*`), shared by the service
// that answers and the admin screens that call it.

/** One entry of the security event log, as `GET /console/organisations/{id}/events` lists it. */
export interface SecurityEvent {
  id: string;
  occurredAt: string;
  type: string;
  actorKind: string;
  actorId: string | null;
  subjectId: string | null;
  ip: string | null;
  requestId: string | null;
  details: Record<string, string>;
}
