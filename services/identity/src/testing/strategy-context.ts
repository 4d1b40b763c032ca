import { randomUUID } from 'node:crypto';
import { createTestDb, migrate, typed, type Database } from '@acme/db';
import { FakeClock } from '@acme/db/clock';
import { loadConfig } from '../config.ts';
import type { IdentityContext } from '../context.ts';
import type { FlowKind } from '../db/flows.ts';
import type { FlowRow, IdentityDb } from '../db/schema.ts';
import type { Outcome } from '../flows/outcome.ts';
import type { StrategyContext } from '../flows/strategy.ts';
import { createHydraClient } from '../oauth2/hydra.ts';
import { createPasswordHasher } from '../password/hasher.ts';
import { createIdentityMetrics } from '../metrics.ts';
import { migrations } from '../migrations.ts';
import { ensurePasswordIdentity } from '../seed.ts';
import { SessionCache } from '../sessions/cache.ts';
import { createSession, findSessionByToken, type ActiveSession } from '../sessions/repo.ts';

/** A message the service queued, as the capturing mailers of the tests keep it. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export const PASSWORD = 'correct horse battery staple 42';

/**
 * Strategies without HTTP: a real test database and the service context with a fake clock and a
 * capturing mailer; flows are plain rows and sessions are made directly.
 */
export async function strategyTestbed(env: Record<string, string> = {}) {
  const db: Database = await createTestDb();
  await migrate(db, 'identity', migrations);
  const clock = new FakeClock(new Date('2026-03-01T10:00:00.000Z'));
  const mailbox: Mail[] = [];
  const config = loadConfig({ LOG_LEVEL: 'silent', ...env });
  const passwords = createPasswordHasher(config.hashPool);
  const service: IdentityContext = {
    config,
    db: typed<IdentityDb>(db),
    clock,
    // Never told it is listening, so it caches nothing.
    sessionCache: new SessionCache({ ...config.sessionCache, clock }),
    hydra: createHydraClient('http://127.0.0.1:9'),
    mailer: {
      async enqueue(msg) {
        mailbox.push(msg);
      },
    },
    passwords,
    metrics: createIdentityMetrics({ passwordPool: passwords.pool }),
  };
  return {
    service,
    clock,
    mailbox,
    async user(email: string, opts: { traits?: Record<string, unknown>; verified?: boolean } = {}) {
      return (await ensurePasswordIdentity(db, { email, password: PASSWORD, ...opts }, clock)).id;
    },
    async session(identityId: string, methods = [{ method: 'password', aal: 'aal1' as const }]) {
      const now = clock.now();
      const { token } = await createSession(service.db, {
        identityId,
        methods: methods.map((m) => ({ ...m, completed_at: now.toISOString() })),
        now,
        lifespanMs: service.config.sessionLifespanMs,
        ip: '192.0.2.1',
        userAgent: 'test',
      });
      return (await findSessionByToken(service.db, token, now))!;
    },
    flow(kind: FlowKind, over: Partial<FlowRow> = {}): FlowRow {
      const now = clock.now();
      return {
        id: randomUUID(),
        kind,
        type: 'browser',
        state: 'choose_method',
        csrf_hash: null,
        request_url: 'http://127.0.0.1/self-service',
        return_to: null,
        refresh: false,
        requested_aal: 'aal1',
        oauth2_login_challenge: null,
        identity_id: null,
        session_id: null,
        ui: { action: 'http://127.0.0.1/self-service', method: 'POST', nodes: [] },
        internal: {},
        issued_at: now,
        expires_at: new Date(now.getTime() + 3600_000),
        created_at: now,
        updated_at: now,
        ...over,
      };
    },
    ctx(session?: ActiveSession, attempts = { used: 0, max: 5 }): StrategyContext {
      return {
        service,
        now: clock.now(),
        session,
        client: { ip: '192.0.2.1', userAgent: 'test' },
        attempts: { ...attempts, exhausted: attempts.used >= attempts.max },
      };
    },
    /** Runs what an outcome commits, in a transaction, as the engine does. */
    async commit(o: Outcome) {
      const commit = 'commit' in o ? o.commit : undefined;
      if (commit) await service.db.transaction().execute((trx) => commit(trx));
    },
    close: async () => {
      service.metrics.close();
      await db.close();
    },
  };
}
