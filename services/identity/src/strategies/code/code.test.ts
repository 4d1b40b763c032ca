import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { strategyTestbed } from '../../testing/strategy-context.ts';
import { recoveryCode } from './recovery.ts';
import { verificationCode } from './verification.ts';

const ids = (o: object) =>
  (o as { messages?: { message: { id: number } }[] }).messages?.map((m) => m.message.id);
describe('code strategy (no HTTP)', () => {
  let t: Awaited<ReturnType<typeof strategyTestbed>>;
  let ada: string;
  let bea: string;
  beforeAll(async () => {
    t = await strategyTestbed();
    ada = await t.user('ada@example.com');
    bea = await t.user('bea@example.com', { verified: false });
  });
  afterAll(() => t.close());

  it('recovery: sending moves the flow to sent_email and mails a code only to a known address', async () => {
    const flow = t.flow('recovery');
    expect(recoveryCode.needsCsrf!(flow, { method: 'code', email: 'x@example.com' })).toBe(true);
    const unknown = await recoveryCode.submit(flow, { method: 'code', email: 'ghost@example.com' }, t.ctx());
    expect(unknown).toMatchObject({
      type: 'flow_updated',
      status: 200,
      patch: { state: 'sent_email' },
    });
    await t.commit(unknown);
    expect(t.mailbox).toHaveLength(0);
    const known = await recoveryCode.submit(flow, { method: 'code', email: ' Ada@Example.com ' }, t.ctx());
    await t.commit(known);
    expect(t.mailbox.map((m) => m.to)).toEqual(['ada@example.com']);
  });

  it('recovery: a wrong code counts an attempt (200), the sixth is refused with a new flow, the right one signs in', async () => {
    const flow0 = t.flow('recovery');
    const sent = await recoveryCode.submit(flow0, { method: 'code', email: 'ada@example.com' }, t.ctx());
    await t.commit(sent);
    const code = t.mailbox.at(-1)!.text.match(/\b(\d{6})\b/)![1]!;
    const flow = {
      ...flow0,
      state: 'sent_email',
      internal: (sent as { patch: { internal: Record<string, unknown> } }).patch.internal,
    };
    const wrong = await recoveryCode.submit(
      flow,
      { method: 'code', code: code === '000000' ? '111111' : '000000' },
      t.ctx(),
    );
    expect(wrong).toMatchObject({ type: 'flow_updated', status: 200, countAttempt: true });
    expect(ids(wrong)).toEqual([4060006]);
    expect(
      await recoveryCode.submit(flow, { method: 'code', code }, t.ctx(undefined, { used: 5, max: 5 })),
    ).toMatchObject({
      type: 'flow_replaced',
    });
    const ok = await recoveryCode.submit(flow, { method: 'code', code }, t.ctx());
    expect(ok).toMatchObject({
      type: 'success',
      identityId: ada,
      method: 'code_recovery',
      countAttempt: true,
    });
  });

  it('verification: a code submission needs no CSRF; the right code commits the address as verified', async () => {
    const flow0 = t.flow('verification');
    expect(verificationCode.needsCsrf!(flow0, { method: 'code', code: '123456' })).toBe(false);
    const sent = await verificationCode.submit(flow0, { method: 'code', email: 'bea@example.com' }, t.ctx());
    await t.commit(sent);
    const before = await t.service.db
      .selectFrom('identity_verifiable_addresses')
      .select(['verified', 'status'])
      .where('identity_id', '=', bea)
      .executeTakeFirstOrThrow();
    expect(before).toEqual({ verified: false, status: 'sent' });
    const code = t.mailbox.at(-1)!.text.match(/\b(\d{6})\b/)![1]!;
    const flow = {
      ...flow0,
      state: 'sent_email',
      internal: (sent as { patch: { internal: Record<string, unknown> } }).patch.internal,
    };
    const ok = await verificationCode.submit(flow, { method: 'code', code }, t.ctx());
    expect(ok.type).toBe('success');
    await t.commit(ok);
    const row = await t.service.db
      .selectFrom('identity_verifiable_addresses')
      .select(['verified', 'status'])
      .where('identity_id', '=', bea)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ verified: true, status: 'completed' });
  });

  it('a code before any was sent asks for the email (400)', async () => {
    const out = await verificationCode.submit(
      t.flow('verification'),
      { method: 'code', code: '123456' },
      t.ctx(),
    );
    expect(out).toMatchObject({ type: 'flow_updated', messages: [{ pointer: '#/email' }] });
    expect(ids(out)).toEqual([4000002]);
  });
});
