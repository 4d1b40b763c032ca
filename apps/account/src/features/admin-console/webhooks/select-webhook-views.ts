import type { WebhookDelivery, WebhookEndpoint, WebhookEventType } from '@acme/users-contract/webhooks';
import { formatDate } from '../use-load.ts';
import { webhooksCopy as t } from './webhooks-copy.ts';

// What an endpoint and a delivery show, from what the user service answered.

export interface EndpointView {
  /** null: every event type. */
  eventTypes: WebhookEventType[] | null;
  state: string;
  /** The switch the endpoint offers: an active one pauses, a paused or disabled one resumes. */
  toggle: 'pause' | 'resume';
}

export function selectEndpointView(endpoint: WebhookEndpoint): EndpointView {
  return {
    eventTypes: endpoint.eventTypes.length === 0 ? null : endpoint.eventTypes,
    state:
      endpoint.state === 'disabled' && endpoint.disabledReason
        ? t.disabledBecause(endpoint.disabledReason)
        : t.states[endpoint.state],
    toggle: endpoint.state === 'active' ? 'pause' : 'resume',
  };
}

export interface DeliveryView {
  status: string;
  lastResponse: string;
  lastAttempt: string;
  nextAttempt: string;
  /** A delivery still waiting for its first attempt is already on its way. */
  canRedeliver: boolean;
}

export function selectDeliveryView(delivery: WebhookDelivery): DeliveryView {
  const parts = [
    delivery.lastResponseStatus === null ? null : t.httpStatus(delivery.lastResponseStatus),
    delivery.lastError,
  ].filter((part): part is string => Boolean(part));
  return {
    status: t.deliveryStates[delivery.status],
    lastResponse: parts.length ? parts.join(': ') : t.none,
    lastAttempt: delivery.lastAttemptAt ? formatDate(delivery.lastAttemptAt) : t.none,
    nextAttempt: delivery.nextAttemptAt ? formatDate(delivery.nextAttemptAt) : t.none,
    canRedeliver: delivery.status !== 'pending',
  };
}

/** The next page appended (a delivery already listed is not listed twice). */
export function appendDeliveries(rows: WebhookDelivery[], page: WebhookDelivery[]): WebhookDelivery[] {
  const listed = new Set(rows.map((row) => row.id));
  return [...rows, ...page.filter((delivery) => !listed.has(delivery.id))];
}

/** A redelivery's answer in place of its row; a delivery the list does not hold yet goes first (newest). */
export function applyRedelivery(rows: WebhookDelivery[], delivery: WebhookDelivery): WebhookDelivery[] {
  return rows.some((row) => row.id === delivery.id)
    ? rows.map((row) => (row.id === delivery.id ? delivery : row))
    : [delivery, ...rows];
}
