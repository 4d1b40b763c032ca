import { typed } from '@acme/db';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startEventRetention } from '../../src/console/retention.ts';
import type { UsersDb } from '../../src/db-types.ts';
import { recordEvent, systemOrigin } from '../../src/events/events.ts';
import { startConsoleStack, type ConsoleStack } from './console-harness.ts';

const DAY = 86_400_000;

/**
 * An organisation's own event retention (ManageOrganisationSettings): at least a day, at most the
 * service's SECURITY_EVENTS_RETENTION_DAYS; the hourly retention job trims each organisation's log
 * and feed by its own days.
 */
describe('console API: event retention', () => {
  let stack: ConsoleStack;
  let acme = '';
  let globex = '';
  const tokens: Record<string, string> = {};
  const path = (org = acme) => `/console/organisations/${org}/event-retention`;
  const db = () => typed<UsersDb>(stack.db);

  beforeAll(async () => {
    stack = await startConsoleStack();
    acme = await stack.newOrganisation('acme.test');
    globex = await stack.newOrganisation('globex.test');
    const people = {
      ada: await stack.newUser(acme, 'acme.test', 'org-admin'),
      grace: await stack.newUser(acme, 'acme.test', 'admin'),
      mel: await stack.newUser(acme, 'acme.test', 'member'),
      gus: await stack.newUser(globex, 'globex.test', 'org-admin'),
    };
    for (const [name, person] of Object.entries(people)) {
      tokens[name] = await stack.tokenFor(person.identityId);
    }
  }, 60_000);
  afterAll(async () => stack?.close());
  beforeEach(() => stack.clock.freshWindow(60_000));

  it('an organisation with 7 days loses its 8-day-old events (log and feed) while another keeps its own; the change is a console event', async () => {
    const before = await stack.call(tokens.ada, 'GET', path());
    expect(before.status).toBe(200);
    expect(before.body).toEqual({ organisationId: acme, retentionDays: null, serviceRetentionDays: 400 });

    const set = await stack.call(tokens.ada, 'PUT', path(), { retentionDays: 7 });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ organisationId: acme, retentionDays: 7, serviceRetentionDays: 400 });
    const changes = await stack.call(
      tokens.ada,
      'GET',
      `/console/organisations/${acme}/events?type=organisation.event_retention_changed`,
    );
    expect(changes.body.events.map((e: { details: unknown }) => e.details)).toEqual([
      { from: 'default', to: '7' },
    ]);

    const eightDaysAgo = new Date(stack.clock.now().getTime() - 8 * DAY);
    const sixDaysAgo = new Date(stack.clock.now().getTime() - 6 * DAY);
    for (const [organisationId, at] of [
      [acme, eightDaysAgo],
      [acme, sixDaysAgo],
      [globex, eightDaysAgo],
    ] as const) {
      await recordEvent(
        db(),
        systemOrigin(),
        {
          organisationId,
          type: 'trusted_networks.changed',
          subjectId: null,
          details: { at: at.toISOString() },
        },
        at,
      );
    }
    const count = async (table: 'security_events' | 'event_feed', organisationId: string) =>
      Number(
        (
          await sql<{ n: string }>`select count(*) as n from ${sql.table(table)}
            where organisation_id = ${organisationId} and occurred_at < ${new Date(stack.clock.now().getTime() - 5 * DAY)}`.execute(
            db(),
          )
        ).rows[0]!.n,
      );
    expect(await count('security_events', acme)).toBe(2);
    expect(await count('event_feed', acme)).toBe(2);
    // Before the job runs, the console already lists nothing past the organisation's days.
    const listed = await stack.call(
      tokens.ada,
      'GET',
      `/console/organisations/${acme}/events?type=trusted_networks.changed`,
    );
    expect(listed.body.events.map((e: { occurredAt: string }) => e.occurredAt)).toEqual([
      sixDaysAgo.toISOString(),
    ]);

    const job = startEventRetention({
      db: db(),
      config: loadConfig({}),
      clock: stack.clock,
      onError: (error) => {
        throw error;
      },
    });
    await job.stop();
    expect(await count('security_events', acme)).toBe(1);
    expect(await count('event_feed', acme)).toBe(1);
    expect(await count('security_events', globex)).toBe(1);
    expect(await count('event_feed', globex)).toBe(1);

    const reset = await stack.call(tokens.ada, 'PUT', path(), { retentionDays: null });
    expect(reset.body.retentionDays).toBeNull();
  });

  it('bad values get the 400 of the console API and change nothing', async () => {
    await stack.call(tokens.ada, 'PUT', path(), { retentionDays: 30 });
    for (const body of [
      { retentionDays: 0 },
      { retentionDays: -1 },
      { retentionDays: 10_000 },
      { retentionDays: 401 },
      { retentionDays: 7.5 },
      { retentionDays: 'abc' },
      {},
      JSON.parse('{"retentionDays": 7, "__proto__": {"admin": true}}'),
      { retentionDays: 7, constructor: { prototype: {} } },
    ]) {
      const res = await stack.call(tokens.ada, 'PUT', path(), body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errorCode).toBe('INVALID_REQUEST');
    }
    const malformed = await stack.call(tokens.ada, 'PUT', path(), undefined, {
      'content-type': 'application/json',
    });
    expect(malformed.status).toBe(400);
    expect((await stack.call(tokens.ada, 'GET', path())).body.retentionDays).toBe(30);
  });

  it('abuse: a member or an admin without ManageOrganisationSettings, or another organisation, can neither read nor change it', async () => {
    for (const [name, org] of [
      ['mel', acme],
      ['grace', acme],
      ['gus', acme],
    ] as const) {
      expect((await stack.call(tokens[name], 'GET', path(org))).status, `${name} GET`).toBe(403);
      const write = await stack.call(tokens[name], 'PUT', path(org), { retentionDays: 1 });
      expect(write.status, `${name} PUT`).toBe(403);
    }
    expect((await stack.call(tokens.ada, 'GET', path())).body.retentionDays).toBe(30);
  });

  it('50 parallel saves of one value record one change', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, () => stack.call(tokens.ada, 'PUT', path(), { retentionDays: 90 })),
    );
    // Past the console's per-person limit some get 429; none fails otherwise.
    expect(results.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    expect(results.some((r) => r.status === 200)).toBe(true);
    const changes = await stack.call(
      tokens.ada,
      'GET',
      `/console/organisations/${acme}/events?type=organisation.event_retention_changed`,
    );
    expect(
      changes.body.events.filter((e: { details: { to: string } }) => e.details.to === '90'),
    ).toHaveLength(1);
  });
});
