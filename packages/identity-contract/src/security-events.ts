// The identity service's security events (issue 24): their types and their wire shape on the admin
// API (`GET /admin/security-events`). No runtime dependency, so the admin screens may import it.

/**
 * Every event type the identity service writes, in one place: the user service's console list
 * (`@acme/users-contract/console`) adds them to its own, and the admin screens filter by them.
 */
export const IDENTITY_SECURITY_EVENT_TYPES = [
  'signin.succeeded',
  'signin.failed',
  'account.locked',
  'account.unlocked',
  'two_factor.added',
  'two_factor.reset',
  'two_factor.removed',
  'backup_codes.regenerated',
  'backup_code.used',
  'passkey.added',
  'passkey.removed',
  'password.changed',
  'recovery.used',
  'session.ended',
  'account.reclaimed',
] as const;

export type IdentitySecurityEventType = (typeof IDENTITY_SECURITY_EVENT_TYPES)[number];

/** Who caused an event: the person themselves, the operator (admin API), or the service itself. */
export type SecurityEventActorKind = 'person' | 'operator' | 'system';

/** One event as `GET /admin/security-events` lists it (Kratos-style snake_case). */
export interface IdentitySecurityEventWire {
  id: string;
  occurred_at: string;
  type: IdentitySecurityEventType;
  actor_kind: SecurityEventActorKind;
  /** The identity that acted (for `person`), else null. */
  actor_id: string | null;
  /** The identity the event concerns. */
  subject_id: string;
  ip_address: string | null;
  user_agent: string | null;
  /** The `X-Request-Id` of the request that wrote it (the JSON logs' `requestId`). */
  request_id: string | null;
  /** Names and values (method, reason, counts), never a secret, code or token. */
  details: Record<string, string>;
}

/** Subjects one `GET /admin/security-events` may name (`subject_id` repeated): the URL stays short. */
export const MAX_EVENT_SUBJECTS_PER_QUERY = 100;

/**
 * A position in the event order (newest first: time, then id). The admin API's `page_token` and the
 * user service's console cursor are this same string, so a merged page can continue in both sources.
 */
export function eventPosition(occurredAt: string, id: string): string {
  return base64url(`${occurredAt}|${id}`);
}

/** The position a page token names, or null when it is not one. */
export function parseEventPosition(token: string): { occurredAt: Date; id: string } | null {
  if (token.length > 200) return null;
  let text: string;
  try {
    text = fromBase64url(token);
  } catch {
    return null;
  }
  const match = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)\|([0-9a-f-]{36})$/.exec(text);
  if (!match) return null;
  const occurredAt = new Date(match[1]!);
  return Number.isNaN(occurredAt.getTime()) ? null : { occurredAt, id: match[2]! };
}

/** Newest first: later time first, then the greater id (PostgreSQL's uuid order is the hex order). */
export function compareEventsNewestFirst(
  a: { occurredAt: string; id: string },
  b: { occurredAt: string; id: string },
): number {
  if (a.occurredAt !== b.occurredAt) return a.occurredAt < b.occurredAt ? 1 : -1;
  return a.id === b.id ? 0 : a.id < b.id ? 1 : -1;
}

const base64url = (text: string) =>
  btoa(String.fromCharCode(...new TextEncoder().encode(text)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

const fromBase64url = (token: string) => {
  const binary = atob(token.replace(/-/g, '+').replace(/_/g, '/'));
  return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
};
