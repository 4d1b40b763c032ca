import type { Database } from '@acme/db';
import {
  counter,
  createServiceMetrics,
  sampledCounter,
  sampledGauge,
  type ServiceMetrics,
} from '@acme/service-kit/metrics';
import { IdentityError } from './errors/identity-error.ts';
import type { FlowKind } from './db/flows.ts';
import type { FlowRow } from './db/schema.ts';
import type { Outcome } from './flows/outcome.ts';
import type { WorkPool } from './password/pool.ts';

/** The identity service's metrics (one registry per instance; served at `/metrics` on the management listener). */
export interface IdentityMetrics {
  readonly service: ServiceMetrics;
  /** Counts one submitted self-service method: login, second factor (aal2 login), recovery. */
  flowSubmitted(kind: FlowKind, flow: FlowRow, method: string, outcome: string): void;
  /** Counts a lockout started by a failed attempt (one admission starts each). */
  lockoutStarted(factor: 'password' | 'second_factor'): void;
  close(): void;
}

/**
 * Outcome label of a strategy's answer: `success`; `failure` (wrong password or code, invalid form);
 * `continued` (a step done, e.g. a code sent); `redirect`; `replaced` (too many attempts);
 * `throttled` (429); `overloaded` (503, hashing at capacity); `error`.
 */
export function outcomeLabel(o: Outcome): string {
  switch (o.type) {
    case 'success':
      return 'success';
    case 'flow_updated':
      return o.status === 200 ? 'continued' : 'failure';
    case 'location_change':
      return 'redirect';
    case 'flow_replaced':
      return 'replaced';
    case 'error':
      return errorLabel(o.error);
  }
}

export function errorLabel(e: unknown): string {
  if (e instanceof IdentityError) {
    if (e.status === 503) return 'overloaded';
    if (e.status === 429) return 'throttled';
  }
  return 'error';
}

export function createIdentityMetrics(opts: { db?: Database; passwordPool: WorkPool }): IdentityMetrics {
  const service = createServiceMetrics('identity', opts.db ? { db: opts.db } : {});
  const login = counter(
    service,
    'identity_login_total',
    'First-factor login attempts by method and outcome.',
    ['method', 'outcome'],
  );
  const secondFactor = counter(
    service,
    'identity_second_factor_total',
    'Second-factor (aal2) login attempts by method and outcome.',
    ['method', 'outcome'],
  );
  const recovery = counter(
    service,
    'identity_recovery_total',
    'Account recovery submissions (sending and checking codes) by method and outcome.',
    ['method', 'outcome'],
  );
  const lockouts = counter(
    service,
    'identity_lockouts_total',
    'Account lockouts started by failed attempts, by factor (password, second_factor).',
    ['factor'],
  );
  const pool = opts.passwordPool;
  sampledGauge(
    service,
    'identity_password_hash_queue_depth',
    'Password hashes waiting for a slot in the bounded hashing pool.',
    () => pool.queued,
  );
  sampledGauge(service, 'identity_password_hash_active', 'Password hashes running now.', () => pool.active);
  sampledCounter(
    service,
    'identity_password_hash_rejected_total',
    'Password hashes refused (503) because the queue was full.',
    () => pool.rejected,
  );
  return {
    service,
    flowSubmitted(kind, flow, method, outcome) {
      if (kind === 'login') {
        (flow.requested_aal === 'aal1' ? login : secondFactor).inc({ method, outcome });
      } else if (kind === 'recovery') {
        recovery.inc({ method, outcome });
      }
    },
    lockoutStarted: (factor) => lockouts.inc({ factor }),
    close: () => service.close(),
  };
}
