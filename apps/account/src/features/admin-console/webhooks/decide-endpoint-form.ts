import {
  WEBHOOK_EVENT_TYPES,
  type WebhookEndpoint,
  type WebhookEventType,
} from '@acme/users-contract/webhooks';
import { webhooksCopy as t } from './webhooks-copy.ts';

// The endpoint form (add and edit), checked before it is sent. The user service decides what it
// accepts (https outside development, no private addresses); the screen only catches what is not a
// URL at all and an empty choice of events.

export interface EndpointFormValues {
  url: string;
  /** Every event type, present and future (sent as an empty list). */
  allEvents: boolean;
  eventTypes: readonly WebhookEventType[];
}

export type EndpointFormDecision =
  | { ok: true; body: { url: string; eventTypes: WebhookEventType[] } }
  | { ok: false; field: 'url' | 'events'; error: string };

const SCHEMES = ['https:', 'http:'];

export function decideEndpointForm(values: EndpointFormValues): EndpointFormDecision {
  const url = values.url.trim();
  if (!url) return { ok: false, field: 'url', error: t.urlRequired };
  if (!isWebUrl(url)) return { ok: false, field: 'url', error: t.urlInvalid };
  if (!values.allEvents && values.eventTypes.length === 0) {
    return { ok: false, field: 'events', error: t.eventsRequired };
  }
  const eventTypes = values.allEvents
    ? []
    : WEBHOOK_EVENT_TYPES.filter((type) => values.eventTypes.includes(type));
  return { ok: true, body: { url, eventTypes } };
}

function isWebUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return SCHEMES.includes(url.protocol) && url.hostname !== '';
  } catch {
    return false;
  }
}

/** A new endpoint's form: no URL, every event. */
export const NEW_ENDPOINT: EndpointFormValues = { url: '', allEvents: true, eventTypes: [] };

/** The form of an endpoint being edited. */
export function formValuesOf(endpoint: WebhookEndpoint): EndpointFormValues {
  return { url: endpoint.url, allEvents: endpoint.eventTypes.length === 0, eventTypes: endpoint.eventTypes };
}
