import { describe, expect, it } from 'vitest';
import { decideEndpointForm, formValuesOf, type EndpointFormValues } from './decide-endpoint-form.ts';
import { webhooksCopy as t } from './webhooks-copy.ts';

const URL_OK = 'https://hooks.example.com/acme';

describe('decideEndpointForm', () => {
  it.each<[string, EndpointFormValues, ReturnType<typeof decideEndpointForm>]>([
    [
      'all events: sent as an empty list',
      { url: URL_OK, allEvents: true, eventTypes: [] },
      { ok: true, body: { url: URL_OK, eventTypes: [] } },
    ],
    [
      'all events wins over types ticked before',
      { url: URL_OK, allEvents: true, eventTypes: ['role.changed'] },
      { ok: true, body: { url: URL_OK, eventTypes: [] } },
    ],
    [
      'chosen types in the contract order, once each',
      { url: URL_OK, allEvents: false, eventTypes: ['role.changed', 'session.signed_in', 'role.changed'] },
      { ok: true, body: { url: URL_OK, eventTypes: ['session.signed_in', 'role.changed'] } },
    ],
    [
      'the URL is trimmed',
      { url: `  ${URL_OK}\n`, allEvents: true, eventTypes: [] },
      { ok: true, body: { url: URL_OK, eventTypes: [] } },
    ],
    [
      'http is left to the server (development accepts loopback receivers)',
      { url: 'http://127.0.0.1:9999/hook', allEvents: true, eventTypes: [] },
      { ok: true, body: { url: 'http://127.0.0.1:9999/hook', eventTypes: [] } },
    ],
    [
      'an empty URL',
      { url: '   ', allEvents: true, eventTypes: [] },
      { ok: false, field: 'url', error: t.urlRequired },
    ],
    [
      'not a URL',
      { url: 'hooks.example.com', allEvents: true, eventTypes: [] },
      { ok: false, field: 'url', error: t.urlInvalid },
    ],
    [
      'another scheme',
      { url: 'ftp://hooks.example.com/', allEvents: true, eventTypes: [] },
      { ok: false, field: 'url', error: t.urlInvalid },
    ],
    [
      'chosen events, none ticked',
      { url: URL_OK, allEvents: false, eventTypes: [] },
      { ok: false, field: 'events', error: t.eventsRequired },
    ],
  ])('%s', (_rule, values, expected) => {
    expect(decideEndpointForm(values)).toEqual(expected);
  });

  it.each<[string, string[], EndpointFormValues]>([
    ['no types listed: all events', [], { url: URL_OK, allEvents: true, eventTypes: [] }],
    [
      'types listed: those ticked',
      ['member.added'],
      { url: URL_OK, allEvents: false, eventTypes: ['member.added'] },
    ],
  ])('formValuesOf: %s', (_rule, eventTypes, expected) => {
    expect(
      formValuesOf({
        id: 'e1',
        url: URL_OK,
        eventTypes: eventTypes as never,
        state: 'active',
        disabledReason: null,
        createdAt: '2026-11-01T00:00:00.000Z',
        updatedAt: '2026-11-01T00:00:00.000Z',
      }),
    ).toEqual(expected);
  });
});
