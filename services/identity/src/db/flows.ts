import { randomUUID } from 'node:crypto';
import type { UiContainer } from '@ory/client';
import { isUuid, type Db } from './db.ts';
import type { FlowRow } from './schema.ts';

export type FlowKind = 'login' | 'settings' | 'recovery' | 'verification' | 'registration';

export interface NewFlow {
  kind: FlowKind;
  type: 'browser' | 'api';
  state: string;
  csrfHash: string | null;
  requestUrl: string;
  returnTo: string | null;
  refresh?: boolean;
  requestedAal?: string;
  oauth2LoginChallenge?: string | null;
  identityId?: string | null;
  sessionId?: string | null;
  ui: (id: string) => UiContainer;
  internal?: Record<string, unknown>;
  now: Date;
  lifespanMs: number;
}

export async function insertFlow(db: Db, f: NewFlow): Promise<FlowRow> {
  const id = randomUUID();
  const row: FlowRow = {
    id,
    kind: f.kind,
    type: f.type,
    state: f.state,
    csrf_hash: f.csrfHash,
    request_url: f.requestUrl,
    return_to: f.returnTo,
    refresh: f.refresh ?? false,
    requested_aal: f.requestedAal ?? 'aal1',
    oauth2_login_challenge: f.oauth2LoginChallenge ?? null,
    identity_id: f.identityId ?? null,
    session_id: f.sessionId ?? null,
    ui: f.ui(id),
    internal: f.internal ?? {},
    issued_at: f.now,
    expires_at: new Date(f.now.getTime() + f.lifespanMs),
    created_at: f.now,
    updated_at: f.now,
  };
  await db
    .insertInto('identity_flows')
    .values({ ...row, ui: JSON.stringify(row.ui), internal: JSON.stringify(row.internal) })
    .execute();
  return row;
}

export async function getFlow(db: Db, kind: FlowKind, id: unknown): Promise<FlowRow | undefined> {
  if (typeof id !== 'string' || !isUuid(id)) return undefined;
  return db
    .selectFrom('identity_flows')
    .selectAll()
    .where('id', '=', id)
    .where('kind', '=', kind)
    .executeTakeFirst();
}

export async function updateFlow(
  db: Db,
  id: string,
  patch: { ui?: UiContainer; state?: string; internal?: Record<string, unknown> },
  now: Date,
): Promise<void> {
  await db
    .updateTable('identity_flows')
    .set({
      ...(patch.ui ? { ui: JSON.stringify(patch.ui) } : {}),
      ...(patch.state ? { state: patch.state } : {}),
      ...(patch.internal ? { internal: JSON.stringify(patch.internal) } : {}),
      updated_at: now,
    })
    .where('id', '=', id)
    .execute();
}

export const isExpired = (flow: FlowRow, now: Date) => flow.expires_at.getTime() <= now.getTime();
