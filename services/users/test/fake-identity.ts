import { randomUUID } from 'node:crypto';
import { recordingServer } from './harness.ts';
import type { RecordingServer } from './harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

export interface FakeIdentityRecord {
  id: string;
  state: 'active' | 'inactive';
  traits: any;
  verifiable_addresses: { value: string; verified: boolean }[];
}

export interface FakeRecoveryCode {
  flowId: string;
  identityId: string;
  code: string;
  expiresIn: string;
}

/**
 * A Kratos-like identity service for tests, admin and public API on one port: identities
 * (create, list, get, JSON Patch, delete), `POST /admin/recovery/code`, session revocation, and
 * `GET /sessions/whoami` answering for cookies `session=<token>` registered with `signIn`.
 */
export interface FakeKratos {
  server: RecordingServer;
  url: string;
  identities: Map<string, FakeIdentityRecord>;
  recoveryCodes: FakeRecoveryCode[];
  /** Registers a session for the identity and returns the Cookie header a browser would send. */
  signIn(identityId: string, opts?: { aal2Required?: boolean }): string;
  /** The session id behind a cookie returned by `signIn`. */
  sessionIdOf(cookie: string): string;
  /** Answers whoami with this status for every request (e.g. 500), or undefined to behave. */
  whoamiFailure: number | undefined;
  recoveryFailure: number | undefined;
  close(): Promise<void>;
}

function applyPatch(doc: any, ops: any[]): void {
  for (const op of ops) {
    const parts = String(op.path).slice(1).split('/');
    const last = parts.pop()!;
    let target = doc;
    for (const p of parts) {
      target = target?.[p];
      if (target === undefined) throw new Error(`no path ${op.path}`);
    }
    if (op.op === 'replace' || op.op === 'add') target[last] = op.value;
    else if (op.op === 'remove') delete target[last];
    else throw new Error(`unsupported op ${op.op}`);
  }
}

export async function fakeKratos(): Promise<FakeKratos> {
  const identities = new Map<string, FakeIdentityRecord>();
  const sessions = new Map<
    string,
    { id: string; identityId: string; aal2Required: boolean; active: boolean }
  >();
  const recoveryCodes: FakeRecoveryCode[] = [];
  let seq = 0;
  const notFound = { status: 404, body: { error: { code: 404, message: 'Not Found' } } };
  const state: Omit<FakeKratos, 'server' | 'url' | 'close'> = {
    identities,
    recoveryCodes,
    whoamiFailure: undefined,
    recoveryFailure: undefined,
    signIn(identityId, opts = {}) {
      const token = randomUUID();
      sessions.set(token, {
        id: randomUUID(),
        identityId,
        aal2Required: opts.aal2Required ?? false,
        active: true,
      });
      return `ory_kratos_session=${token}`;
    },
    sessionIdOf(cookie) {
      return sessions.get(cookie.slice('ory_kratos_session='.length))!.id;
    },
  };
  const server = await recordingServer((req) => {
    if (req.method === 'GET' && req.path === '/sessions/whoami') {
      if (state.whoamiFailure !== undefined) return { status: state.whoamiFailure, body: { error: {} } };
      const cookie = String(req.headers.cookie ?? '');
      const token = /ory_kratos_session=([^;]+)/.exec(cookie)?.[1];
      const session = token ? sessions.get(token) : undefined;
      const identity = session ? identities.get(session.identityId) : undefined;
      if (!session || !session.active || !identity || identity.state !== 'active') {
        return { status: 401, body: { error: { code: 401, status: 'Unauthorized' } } };
      }
      if (session.aal2Required) {
        return { status: 403, body: { error: { id: 'session_aal2_required', code: 403 } } };
      }
      return {
        status: 200,
        body: { id: session.id, active: true, authenticator_assurance_level: 'aal1', identity },
      };
    }
    const adminSession = /^\/admin\/sessions\/([^/]+)$/.exec(req.path);
    if (req.method === 'GET' && adminSession) {
      const session = [...sessions.values()].find((s) => s.id === adminSession[1] && s.active);
      const identity = session ? identities.get(session.identityId) : undefined;
      if (!session || !identity) return notFound;
      return { status: 200, body: { id: session.id, active: true, identity } };
    }
    if (req.method === 'POST' && req.path === '/admin/identities') {
      const body = req.body as any;
      seq += 1;
      const id = `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`;
      const identity: FakeIdentityRecord = {
        id,
        state: 'active',
        traits: body.traits,
        verifiable_addresses: (body.verifiable_addresses ?? []).map((a: any) => ({
          value: a.value,
          verified: a.verified,
        })),
      };
      identities.set(id, identity);
      return { status: 201, body: identity };
    }
    if (req.method === 'GET' && req.path === '/admin/identities') {
      const email = req.query.credentials_identifier;
      return {
        status: 200,
        body: [...identities.values()].filter((i) => email === undefined || i.traits.email === email),
      };
    }
    if (req.method === 'POST' && req.path === '/admin/recovery/code') {
      if (state.recoveryFailure !== undefined) return { status: state.recoveryFailure, body: { error: {} } };
      const body = req.body as any;
      if (!identities.has(body.identity_id)) return notFound;
      const flowId = randomUUID();
      const code = String(100000 + recoveryCodes.length).padStart(6, '0');
      recoveryCodes.push({ flowId, identityId: body.identity_id, code, expiresIn: body.expires_in });
      return {
        status: 201,
        body: {
          recovery_link: `http://localhost:4000/account/forgot-password?flow=${flowId}`,
          recovery_code: code,
          expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        },
      };
    }
    const sessionsMatch = /^\/admin\/identities\/([^/]+)\/sessions$/.exec(req.path);
    if (req.method === 'DELETE' && sessionsMatch) {
      if (!identities.has(sessionsMatch[1]!)) return notFound;
      for (const s of sessions.values()) if (s.identityId === sessionsMatch[1]) s.active = false;
      return { status: 204 };
    }
    const match = /^\/admin\/identities\/([^/]+)$/.exec(req.path);
    const identity = match ? identities.get(decodeURIComponent(match[1]!)) : undefined;
    if (match && !identity) return notFound;
    if (identity && req.method === 'GET') return { status: 200, body: identity };
    if (identity && req.method === 'DELETE') {
      identities.delete(identity.id);
      return { status: 204 };
    }
    if (identity && req.method === 'PATCH') {
      const copy = structuredClone(identity);
      try {
        applyPatch(copy, req.body as any[]);
      } catch (error) {
        return { status: 400, body: { error: { code: 400, reason: String(error) } } };
      }
      identities.set(identity.id, copy);
      return { status: 200, body: copy };
    }
    return notFound;
  });
  return {
    ...state,
    server,
    url: server.url,
    close: () => server.close(),
    get whoamiFailure() {
      return state.whoamiFailure;
    },
    set whoamiFailure(v) {
      state.whoamiFailure = v;
    },
    get recoveryFailure() {
      return state.recoveryFailure;
    },
    set recoveryFailure(v) {
      state.recoveryFailure = v;
    },
  };
}
