// The security events screen's filters → the console API's query. Pure.

import { SECURITY_EVENT_TYPES } from '@acme/users-contract/console';

export interface EventFilters {
  /** A member's user id, or '' for anyone. */
  person: string;
  /** An event type, or '' for any. */
  type: string;
  /** `datetime-local` values in the person's time zone, or ''. */
  from: string;
  to: string;
}

export const EMPTY_FILTERS: EventFilters = { person: '', type: '', from: '', to: '' };

const EVENTS_PAGE_SIZE = 25;

/** The one list of event types, shared with the user service (both services' types). */
export const EVENT_TYPES = SECURITY_EVENT_TYPES;

function isoOf(local: string): string | undefined {
  if (!local) return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** Query parameters for a page of events (`cursor` for older pages; none for the CSV export). */
export function selectEventQuery(
  filters: EventFilters,
  page: { cursor?: string | null; limit?: number } | null,
): URLSearchParams {
  const params = new URLSearchParams();
  if (filters.person) params.set('subjectId', filters.person);
  if ((EVENT_TYPES as readonly string[]).includes(filters.type)) params.set('type', filters.type);
  const from = isoOf(filters.from);
  const to = isoOf(filters.to);
  if (from) params.set('from', from);
  if (to) params.set('to', to);
  if (page) {
    params.set('limit', String(page.limit ?? EVENTS_PAGE_SIZE));
    if (page.cursor) params.set('cursor', page.cursor);
  }
  return params;
}
