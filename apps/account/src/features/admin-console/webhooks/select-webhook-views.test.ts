import type { WebhookDelivery, WebhookEndpoint } from '@acme/users-contract/webhooks';
import { describe, expect, it } from 'vitest';
import { formatDate } from '../use-load.ts';
import {
  appendDeliveries,
  applyRedelivery,
  selectDeliveryView,
  selectEndpointView,
  type DeliveryView,
  type EndpointView,
} from './select-webhook-views.ts';
import { webhooksCopy as t } from './webhooks-copy.ts';

const endpoint = (over: Partial<WebhookEndpoint> = {}): WebhookEndpoint => ({
  id: 'e1',
  url: 'https://hooks.example.com/acme',
  eventTypes: [],
  state: 'active',
  disabledReason: null,
  createdAt: '2026-11-01T09:00:00.000Z',
  updatedAt: '2026-11-01T09:00:00.000Z',
  ...over,
});

const delivery = (over: Partial<WebhookDelivery> = {}): WebhookDelivery => ({
  id: 'd1',
  eventId: 'msg_1',
  eventType: 'role.changed',
  status: 'delivered',
  attempts: 1,
  lastResponseStatus: 200,
  lastError: null,
  lastAttemptAt: '2026-11-28T10:00:00.000Z',
  nextAttemptAt: null,
  createdAt: '2026-11-28T10:00:00.000Z',
  ...over,
});

describe('selectEndpointView', () => {
  it.each<[string, Partial<WebhookEndpoint>, EndpointView]>([
    ['active, every event: pause offered', {}, { eventTypes: null, state: t.states.active, toggle: 'pause' }],
    [
      'types listed: those types',
      { eventTypes: ['member.added', 'role.changed'] },
      { eventTypes: ['member.added', 'role.changed'], state: t.states.active, toggle: 'pause' },
    ],
    [
      'paused: resume offered',
      { state: 'paused' },
      { eventTypes: null, state: t.states.paused, toggle: 'resume' },
    ],
    [
      'disabled with its reason: the reason, resume offered',
      { state: 'disabled', disabledReason: 'Every delivery failed for 24 hours.' },
      {
        eventTypes: null,
        state: t.disabledBecause('Every delivery failed for 24 hours.'),
        toggle: 'resume',
      },
    ],
    [
      'disabled without a reason',
      { state: 'disabled' },
      { eventTypes: null, state: t.states.disabled, toggle: 'resume' },
    ],
  ])('%s', (_rule, over, expected) => {
    expect(selectEndpointView(endpoint(over))).toEqual(expected);
  });
});

describe('selectDeliveryView', () => {
  const at = formatDate('2026-11-28T10:00:00.000Z');
  it.each<[string, Partial<WebhookDelivery>, DeliveryView]>([
    [
      'delivered: the response code',
      {},
      {
        status: t.deliveryStates.delivered,
        lastResponse: t.httpStatus(200),
        lastAttempt: at,
        nextAttempt: t.none,
        canRedeliver: true,
      },
    ],
    [
      'failed with no answer: the error and the next attempt',
      {
        status: 'failed',
        lastResponseStatus: null,
        lastError: 'timed out after 5 s',
        nextAttemptAt: '2026-11-28T10:00:00.000Z',
      },
      {
        status: t.deliveryStates.failed,
        lastResponse: 'timed out after 5 s',
        lastAttempt: at,
        nextAttempt: at,
        canRedeliver: true,
      },
    ],
    [
      'a code and an error: both',
      { status: 'failed', lastResponseStatus: 302, lastError: 'redirects are not followed' },
      {
        status: t.deliveryStates.failed,
        lastResponse: `${t.httpStatus(302)}: redirects are not followed`,
        lastAttempt: at,
        nextAttempt: t.none,
        canRedeliver: true,
      },
    ],
    [
      'pending, never tried: nothing to show, no redeliver',
      { status: 'pending', attempts: 0, lastResponseStatus: null, lastAttemptAt: null },
      {
        status: t.deliveryStates.pending,
        lastResponse: t.none,
        lastAttempt: t.none,
        nextAttempt: t.none,
        canRedeliver: false,
      },
    ],
    [
      'abandoned: redeliver offered',
      { status: 'abandoned', lastResponseStatus: 500 },
      {
        status: t.deliveryStates.abandoned,
        lastResponse: t.httpStatus(500),
        lastAttempt: at,
        nextAttempt: t.none,
        canRedeliver: true,
      },
    ],
  ])('%s', (_rule, over, expected) => {
    expect(selectDeliveryView(delivery(over))).toEqual(expected);
  });
});

describe('the deliveries list', () => {
  const a = delivery({ id: 'a' });
  const b = delivery({ id: 'b' });
  const c = delivery({ id: 'c' });
  it.each<[string, () => WebhookDelivery[], string[]]>([
    ['a page appended after the rows', () => appendDeliveries([a], [b, c]), ['a', 'b', 'c']],
    [
      'a delivery already listed is not listed twice',
      () => appendDeliveries([a, b], [b, c]),
      ['a', 'b', 'c'],
    ],
    ['an empty page changes nothing', () => appendDeliveries([a], []), ['a']],
    [
      'a redelivery replaces its row in place',
      () => applyRedelivery([a, b, c], delivery({ id: 'b' })),
      ['a', 'b', 'c'],
    ],
    [
      'a redelivery as a new delivery goes first',
      () => applyRedelivery([a, b], delivery({ id: 'n' })),
      ['n', 'a', 'b'],
    ],
  ])('%s', (_rule, run, ids) => {
    expect(run().map((row) => row.id)).toEqual(ids);
  });

  it('the redelivered row shows its new state', () => {
    const rows = applyRedelivery([a, b], delivery({ id: 'b', status: 'pending', attempts: 2 }));
    expect(rows[1]).toMatchObject({ id: 'b', status: 'pending', attempts: 2 });
  });
});
