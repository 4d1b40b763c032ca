import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, strategyTestbed } from '../../testing/strategy-context.ts';
import { getCredential } from '../../identities/repo.ts';
import { verifyPassword } from '../../password/hasher.ts';
import { passwordLogin } from './login.ts';
import { passwordSettings } from './settings.ts';

const ids = (o: { messages?: { message: { id: number } }[] }) => o.messages?.map((m) => m.message.id);

describe('password strategy (no HTTP)', () => {
  let t: Awaited<ReturnType<typeof strategyTestbed>>;
  let ada: string;
  beforeAll(async () => {
    t = await strategyTestbed();
    ada = await t.user('ada@example.com');
  });
  afterAll(() => t.close());

  it('login: the right password succeeds as `password` for that identity', async () => {
    const out = await passwordLogin.submit(
      t.flow('login'),
      { identifier: 'Ada@Example.com', password: PASSWORD },
      t.ctx(),
    );
    expect(out).toEqual({ type: 'success', identityId: ada, method: 'password' });
  });

  it('login: a wrong password and an unknown identifier answer the same 4000006, keeping the identifier', async () => {
    for (const identifier of ['ada@example.com', 'nobody@example.com']) {
      const out = await passwordLogin.submit(t.flow('login'), { identifier, password: 'nope nope' }, t.ctx());
      expect(out).toMatchObject({ type: 'flow_updated', values: { identifier } });
      expect(ids(out as never)).toEqual([4000006]);
    }
  });

  it('login: missing fields are 4000002 on their nodes; a refresh flow keeps no typed identifier', async () => {
    const out = await passwordLogin.submit(t.flow('login', { refresh: true }), { identifier: 'x' }, t.ctx());
    expect(out).toMatchObject({ type: 'flow_updated', values: {} });
    expect((out as { messages: { pointer: string }[] }).messages.map((m) => m.pointer)).toEqual([
      '#/password',
    ]);
  });

  it('login: offered on aal1 flows only; a refresh with a session hides the identifier', async () => {
    expect(passwordLogin.accepts!(t.flow('login', { requested_aal: 'aal2' }))).toBe(false);
    const session = await t.session(ada);
    const nodes = await passwordLogin.nodes(t.flow('login', { refresh: true }), {
      service: t.service,
      session,
      identity: undefined,
    });
    expect(nodes[0]!.attributes).toMatchObject({
      name: 'identifier',
      type: 'hidden',
      value: 'ada@example.com',
    });
  });

  it('settings: needs a privileged session, enforces the policy, and commits the new hash', async () => {
    const session = await t.session(ada);
    const flow = t.flow('settings');
    t.clock.advance(2 * 3600_000);
    const stale = await passwordSettings.submit(
      flow,
      { password: 'another long passphrase 7' },
      t.ctx(session),
    );
    expect(stale).toMatchObject({ type: 'error', error: { status: 403 } });

    const fresh = await t.session(ada);
    const weak = await passwordSettings.submit(flow, { password: 'short' }, t.ctx(fresh));
    expect(weak).toMatchObject({ type: 'flow_updated' });
    expect((weak as { messages: { pointer: string }[] }).messages[0]!.pointer).toBe('#/password');

    const ok = await passwordSettings.submit(flow, { password: 'another long passphrase 7' }, t.ctx(fresh));
    expect(ok.type).toBe('success');
    // Nothing is written until the engine runs the commit in its transaction.
    const before = await getCredential(t.service.db, ada, 'password');
    expect(await verifyPassword(String(before!.config.hashed_password), PASSWORD)).toBe(true);
    await t.commit(ok);
    const after = await getCredential(t.service.db, ada, 'password');
    expect(await verifyPassword(String(after!.config.hashed_password), 'another long passphrase 7')).toBe(
      true,
    );
  });
});
