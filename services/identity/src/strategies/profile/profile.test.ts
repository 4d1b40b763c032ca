import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { strategyTestbed } from '../../testing/strategy-context.ts';
import { loadIdentity } from '../../identities/repo.ts';
import { profileSettings } from './settings.ts';

const traits = {
  email: 'lin@example.com',
  userServiceID: 'usr_lin',
  name: { first: 'Lin', last: 'Wu' },
  onboarding: { isGitUser: false, mfaSetupDeadline: null, gitProviderConnected: false, tosAccepted: true },
};

describe('profile strategy (no HTTP)', () => {
  let t: Awaited<ReturnType<typeof strategyTestbed>>;
  let lin: string;
  beforeAll(async () => {
    t = await strategyTestbed();
    lin = await t.user('lin@example.com', { traits: { ...traits, email: undefined } as never });
  });
  afterAll(() => t.close());

  it('draws a node per trait with its value, then the save button', async () => {
    const identity = (await loadIdentity(t.service.db, lin))!;
    const nodes = await profileSettings.nodes(t.flow('settings'), {
      service: t.service,
      session: undefined,
      identity,
    });
    const named = nodes.map((n) => [
      (n.attributes as { name: string }).name,
      (n.attributes as { value?: unknown }).value,
    ]);
    expect(named).toContainEqual(['traits.email', 'lin@example.com']);
    expect(named).toContainEqual(['traits.name.first', 'Lin']);
    expect(named.at(-1)).toEqual(['method', 'profile']);
  });

  it('missing traits, invalid traits and admin-managed traits are messages on the form', async () => {
    const session = await t.session(lin);
    const flow = t.flow('settings');
    expect(await profileSettings.submit(flow, { method: 'profile' }, t.ctx(session))).toMatchObject({
      type: 'flow_updated',
      messages: [{ pointer: '#/traits' }],
    });
    const bad = await profileSettings.submit(
      flow,
      { traits: { ...traits, email: 'not an email' } },
      t.ctx(session),
    );
    expect(bad).toMatchObject({ type: 'flow_updated', messages: [{ pointer: '#/traits/email' }] });
    const locked = await profileSettings.submit(
      flow,
      { traits: { ...traits, onboarding: { ...traits.onboarding, tosAccepted: false } } },
      t.ctx(session),
    );
    expect(locked).toMatchObject({
      type: 'flow_updated',
      messages: [{ pointer: '#/traits/onboarding/tosAccepted' }],
    });
  });

  it('saves a new name; a new email needs a privileged session', async () => {
    const session = await t.session(lin);
    const flow = t.flow('settings');
    const ok = await profileSettings.submit(
      flow,
      { traits: { ...traits, name: { first: 'Lina', last: 'Wu' } } },
      t.ctx(session),
    );
    expect(ok).toEqual({ type: 'success' });
    expect((await loadIdentity(t.service.db, lin))!.row.traits).toMatchObject({ name: { first: 'Lina' } });
    t.clock.advance(2 * 3600_000);
    const stale = await t.session(lin);
    t.clock.advance(2 * 3600_000);
    const refresh = await profileSettings.submit(
      flow,
      { traits: { ...traits, email: 'lin2@example.com' } },
      t.ctx(stale),
    );
    expect(refresh).toMatchObject({
      type: 'error',
      error: { status: 403, init: { id: 'session_refresh_required' } },
    });
  });
});
