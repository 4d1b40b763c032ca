import type { Database } from '@acme/db';
import { createTestDb } from '@acme/db';
import { FakeClock } from '@acme/db/clock';
import { startAuthStack, type AuthStackUrls } from '../auth-stack.ts';
import { http, startTestService, type TestUsersService } from '../harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * The user service's clock: real time plus what the tests advanced it by. The identity service
 * records its events (session.ended, account.unlocked…) on the real clock, and the console lists
 * both services' events by time: a clock that started at the stack's creation and moved only when
 * advanced fell behind real time on a loaded machine (the set-up took longer than the advances), and
 * the identity's events then sorted after the user service's later ones.
 */
export class AdvancingClock extends FakeClock {
  private offset = 0;
  override now(): Date {
    return new Date(Date.now() + this.offset);
  }
  override advance(ms: number): void {
    this.offset += ms;
  }
  override set(at: Date | number): void {
    this.offset = (typeof at === 'number' ? at : at.getTime()) - Date.now();
  }
  /**
   * Moves the clock to the start of the next fixed rate window (one it has not been in). Advancing by one
   * window's length alone left the clock anywhere in the new window, and a burst of 50 calls that
   * real time carried over its end had two budgets (45 of 50 passed in a loaded run, not 30).
   */
  freshWindow(windowMs: number): void {
    const now = this.now().getTime();
    this.advance(windowMs - (now % windowMs));
  }
}

const APP_ORIGIN = 'http://localhost:4002';
const PASSWORD = 'Research-Demo-2026!';

/**
 * The user service on the real authorization server and identity service: console calls carry
 * real access tokens (issued by the authorization server's federated-token admin API for the
 * person's identity), verified by real introspection.
 */
export interface ConsoleStack {
  svc: TestUsersService;
  urls: AuthStackUrls;
  db: Database;
  clock: AdvancingClock;
  newOrganisation(domain: string): Promise<string>;
  newUser(
    organisationId: string,
    domain: string,
    role: string,
    name?: { first: string; last: string },
  ): Promise<{ id: string; email: string; identityId: string }>;
  tokenFor(identityId: string): Promise<string>;
  call(
    token: string | undefined,
    method: string,
    path: string,
    json?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; headers: Headers; body: any }>;
  close(): Promise<void>;
}

export async function startConsoleStack(
  options: { env?: Record<string, string>; oauth2Env?: Record<string, string> } = {},
): Promise<ConsoleStack> {
  const db = await createTestDb();
  const closers: (() => Promise<void>)[] = [];
  const urls = await startAuthStack(db, closers, {
    appOrigin: APP_ORIGIN,
    ...(options.oauth2Env ? { oauth2Env: options.oauth2Env } : {}),
  });
  const clock = new AdvancingClock();
  const svc = await startTestService({
    db,
    clock,
    env: {
      IDENTITY_ADMIN_URL: urls.identityAdmin,
      IDENTITY_PUBLIC_URL: urls.identityPublic,
      OAUTH2_ADMIN_URL: urls.oauth2Admin,
      ...options.env,
    },
  });
  let seq = 0;
  return {
    svc,
    urls,
    db,
    clock,
    async newOrganisation(domain) {
      const org = await http(`${svc.adminUrl}/admin/organisations`, {
        method: 'POST',
        json: { name: `Org ${domain}`, domains: [domain], products: ['Platform'] },
      });
      if (org.status !== 201) throw new Error(`organisation: ${org.status} ${JSON.stringify(org.body)}`);
      return (org.body as any).id;
    },
    async newUser(organisationId, domain, role, name) {
      seq += 1;
      const res = await http(`${svc.adminUrl}/admin/users`, {
        method: 'POST',
        json: {
          organisationId,
          email: `person${seq}@${domain}`,
          firstName: name?.first ?? 'Person',
          lastName: name?.last ?? `Number${seq}`,
          role,
          password: PASSWORD,
        },
      });
      if (res.status !== 201) throw new Error(`user: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as any;
    },
    async tokenFor(identityId) {
      const res = await fetch(`${urls.oauth2Admin}/admin/oauth2/federated-tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ subject: identityId, client_id: 'platform', session: { access_token: {} } }),
      });
      const body = (await res.json()) as any;
      if (res.status !== 200) throw new Error(`token: ${res.status} ${JSON.stringify(body)}`);
      return body.access_token as string;
    },
    call(token, method, path, json, headers = {}) {
      return http(`${svc.publicUrl}${path}`, {
        method,
        headers: token === undefined ? headers : { ...headers, authorization: `Bearer ${token}` },
        ...(json === undefined ? {} : { json }),
      });
    },
    async close() {
      await svc.close();
      for (const close of closers.reverse()) await close();
      await db.close();
    },
  };
}
