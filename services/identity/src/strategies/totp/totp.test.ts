import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { strategyTestbed } from '../../testing/strategy-context.ts';
import { getCredential, loadIdentity } from '../../identities/repo.ts';
import { totpLogin } from './login.ts';
import { totpSettings } from './settings.ts';
import { totpCodeAt } from './totp.ts';

const ids = (o: object) =>
  (o as { messages?: { message: { id: number } }[] }).messages?.map((m) => m.message.id);

describe('totp strategy (no HTTP)', () => {
  let t: Awaited<ReturnType<typeof strategyTestbed>>;
  let grace: string;
  beforeAll(async () => {
    t = await strategyTestbed();
    grace = await t.user('grace@example.com');
  });
  afterAll(() => t.close());

  it('settings: a new flow gets a secret; a wrong code counts an attempt; the right one commits the credential', async () => {
    const session = await t.session(grace);
    const identity = (await loadIdentity(t.service.db, grace))!;
    const prepared = await totpSettings.prepare!(t.flow('settings'), {
      service: t.service,
      session,
      identity,
    });
    const secret = prepared.totp_secret as string;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const flow = t.flow('settings', { internal: prepared });

    const wrong = await totpSettings.submit(flow, { method: 'totp', totp_code: '000000' }, t.ctx(session));
    expect(wrong).toMatchObject({ type: 'flow_updated', countAttempt: true });
    expect(ids(wrong)).toEqual([4000008]);

    const dead = await totpSettings.submit(
      flow,
      { method: 'totp', totp_code: totpCodeAt(secret, t.clock.now()) },
      t.ctx(session, { used: 5, max: 5 }),
    );
    expect(ids(dead)).toEqual([4000001]);

    const ok = await totpSettings.submit(
      flow,
      { method: 'totp', totp_code: totpCodeAt(secret, t.clock.now()) },
      t.ctx(session),
    );
    expect(ok).toMatchObject({ type: 'success', patch: { internal: { totp_secret: null } } });
    await t.commit(ok);
    expect(await getCredential(t.service.db, grace, 'totp')).toBeDefined();
  });

  it('login: needs a session, refuses a wrong code and a replayed step, accepts the current code once', async () => {
    const flow = t.flow('login', { requested_aal: 'aal2' });
    expect(totpLogin.accepts!(flow)).toBe(true);
    expect(await totpLogin.submit(flow, { totp_code: '123456' }, t.ctx())).toMatchObject({
      type: 'error',
      error: { status: 401 },
    });
    const session = await t.session(grace);
    const secret = String((await getCredential(t.service.db, grace, 'totp'))!.config.secret);
    t.clock.advance(60_000);
    const code = totpCodeAt(secret, t.clock.now());
    const ok = await totpLogin.submit(flow, { totp_code: code }, t.ctx(session));
    expect(ok).toEqual({ type: 'success', identityId: grace, method: 'totp' });
    const replay = await totpLogin.submit(flow, { totp_code: code }, t.ctx(session));
    expect(replay).toMatchObject({ type: 'flow_updated', countAttempt: true });
    expect(ids(replay)).toEqual([4000008]);
    expect(ids(await totpLogin.submit(flow, { totp_code: '' }, t.ctx(session)))).toEqual([4000002]);
  });
});
