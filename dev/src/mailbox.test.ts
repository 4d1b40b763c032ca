import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import nodemailer from 'nodemailer';
import { extractCode, startStandIns, waitForMessage, type CaughtMessage, type StandIns } from './index.ts';
import { MailStore } from './mailbox.ts';

let standIns: StandIns;
let transport: ReturnType<typeof nodemailer.createTransport>;

beforeAll(async () => {
  standIns = await startStandIns({ httpPort: 0, smtpPort: 0 });
  const smtp = new URL(standIns.urls.smtp);
  transport = nodemailer.createTransport({ host: smtp.hostname, port: Number(smtp.port), secure: false });
});
afterAll(async () => {
  transport.close();
  await standIns.close();
});
beforeEach(async () => {
  const res = await fetch(standIns.urls.mailApi, { method: 'DELETE' });
  expect(res.status).toBe(204);
});

async function messages(to?: string): Promise<CaughtMessage[]> {
  const url = new URL(standIns.urls.mailApi);
  if (to !== undefined) url.searchParams.set('to', to);
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return (await res.json()) as CaughtMessage[];
}

describe('SMTP catcher and mailbox: catching and clearing', () => {
  it('catches a message sent over SMTP and returns it through the JSON API, filtered by recipient', async () => {
    await transport.sendMail({
      from: '"Acme" <no-reply@acme.test>',
      to: 'ada@example.com',
      subject: 'First',
      text: 'Your code is 123456',
      html: '<p>Your code is <b>123456</b></p>',
    });
    await transport.sendMail({
      from: 'no-reply@acme.test',
      to: 'bob@example.com',
      subject: 'Other',
      text: 'x',
    });
    await transport.sendMail({
      from: 'no-reply@acme.test',
      to: 'Ada@Example.com',
      subject: 'Second',
      text: 'y',
    });

    const ada = await messages('ada@example.com');
    expect(ada.map((m) => m.subject)).toEqual(['Second', 'First']);
    const first = ada[1]!;
    expect(first).toMatchObject({
      to: 'ada@example.com',
      from: 'Acme <no-reply@acme.test>',
      subject: 'First',
    });
    expect(first.html.trim()).toBe('<p>Your code is <b>123456</b></p>');
    expect(first.text.trim()).toBe('Your code is 123456');
    expect(first.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(first.createdAt).toISOString()).toBe(first.createdAt);

    expect((await messages()).map((m) => m.subject)).toEqual(['Second', 'Other', 'First']);
    expect(await messages('nobody@example.com')).toEqual([]);

    const one = await fetch(`${standIns.urls.mailApi}/${first.id}`);
    expect(((await one.json()) as CaughtMessage).subject).toBe('First');
  });

  it('matches envelope recipients too (Bcc)', async () => {
    await transport.sendMail({
      from: 'a@acme.test',
      to: 'x@example.com',
      bcc: 'hidden@example.com',
      subject: 'B',
      text: 'b',
    });
    expect((await messages('hidden@example.com')).map((m) => m.subject)).toEqual(['B']);
  });

  it('accepts clients that authenticate, with any credentials', async () => {
    const smtp = new URL(standIns.urls.smtp);
    const withAuth = nodemailer.createTransport({
      host: smtp.hostname,
      port: Number(smtp.port),
      secure: false,
      auth: { user: 'service', pass: 'anything' },
    });
    try {
      await withAuth.sendMail({ from: 'a@acme.test', to: 'auth@example.com', subject: 'Authed', text: 'a' });
    } finally {
      withAuth.close();
    }
    expect((await messages('auth@example.com')).map((m) => m.subject)).toEqual(['Authed']);
  });

  it('clears messages, for everyone or one recipient', async () => {
    await transport.sendMail({ from: 'a@acme.test', to: 'one@example.com', subject: '1', text: '1' });
    await transport.sendMail({ from: 'a@acme.test', to: 'two@example.com', subject: '2', text: '2' });
    expect((await fetch(`${standIns.urls.mailApi}?to=one@example.com`, { method: 'DELETE' })).status).toBe(
      204,
    );
    expect((await messages()).map((m) => m.subject)).toEqual(['2']);
    await fetch(standIns.urls.mailApi, { method: 'DELETE' });
    expect(await messages()).toEqual([]);
  });

  it('long-polls until a matching message arrives', async () => {
    const pending = fetch(`${standIns.urls.mailApi}?to=late@example.com&waitMs=20000`);
    await transport.sendMail({ from: 'a@acme.test', to: 'late@example.com', subject: 'Late', text: 'l' });
    const res = await pending;
    expect(((await res.json()) as CaughtMessage[]).map((m) => m.subject)).toEqual(['Late']);
  });
});

describe('SMTP catcher and mailbox: waiting, bad input and the page', () => {
  it('waits for a matching message and extracts its code', async () => {
    await transport.sendMail({
      from: 'a@acme.test',
      to: 'code@example.com',
      subject: 'Old',
      text: 'code 111111',
    });
    const since = new Date();
    const pending = waitForMessage(standIns.urls.mailApi, 'code@example.com', { since, subject: /recovery/ });
    await transport.sendMail({
      from: 'a@acme.test',
      to: 'other@example.com',
      subject: 'recovery',
      text: '999999',
    });
    await transport.sendMail({
      from: 'a@acme.test',
      to: 'code@example.com',
      subject: 'Your recovery code',
      text: 'Enter 424242 to continue',
    });
    const message = await pending;
    expect(message.subject).toBe('Your recovery code');
    expect(extractCode(message)).toBe('424242');
    await expect(
      waitForMessage(standIns.urls.mailApi, 'nobody@example.com', { timeoutMs: 300 }),
    ).rejects.toThrow('no matching message');
    expect(() => extractCode({ text: 'no code' })).toThrow();
  });

  it('answers bad input with 400/404, never 500', async () => {
    expect((await fetch(`${standIns.urls.mailApi}?waitMs=-1`)).status).toBe(400);
    expect((await fetch(`${standIns.urls.mailApi}?waitMs=abc`)).status).toBe(400);
    expect((await fetch(`${standIns.urls.mailApi}/not-a-uuid`)).status).toBe(404);
    expect((await fetch(`${standIns.urls.mailApi}/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    expect((await fetch(`${standIns.urls.mailbox}/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
  });

  it('shows a mailbox page without script, escaping what the messages contain', async () => {
    await transport.sendMail({
      from: 'a@acme.test',
      to: 'page@example.com',
      subject: '<script>alert(1)</script>',
      text: 'Open http://localhost:4000/account/onboarding?flow=1&code=2 now',
      html: '<p onclick="x()">Hi</p><script>alert(2)</script>',
    });
    const list = await fetch(standIns.urls.mailbox);
    expect(list.status).toBe(200);
    expect(list.headers.get('content-type')).toContain('text/html');
    const csp = list.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('script-src');
    const body = await list.text();
    expect(body).not.toContain('<script');
    expect(body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');

    const [m] = await messages('page@example.com');
    const view = await fetch(`${standIns.urls.mailbox}/${m!.id}`);
    const viewBody = await view.text();
    expect(viewBody).not.toContain('<script');
    expect(viewBody).toContain(`<iframe sandbox="" title="HTML part" src="/mail/${m!.id}/html">`);
    expect(viewBody).toContain('href="http://localhost:4000/account/onboarding?flow=1&amp;code=2"');

    const frame = await fetch(`${standIns.urls.mailbox}/${m!.id}/html`);
    expect(frame.headers.get('content-security-policy')).toMatch(/^sandbox; default-src 'none'/);
    expect(await frame.text()).toContain('<p onclick="x()">Hi</p>');
  });
});

describe('mail store', () => {
  it('keeps at most its capacity, dropping the oldest', () => {
    const store = new MailStore(3);
    for (let i = 0; i < 5; i++) {
      store.add({
        id: `id${i}`,
        to: 'a@b.c',
        from: '',
        subject: `s${i}`,
        text: '',
        html: '',
        createdAt: new Date().toISOString(),
        recipients: new Set(['a@b.c']),
      });
    }
    expect(store.list().map((m) => m.subject)).toEqual(['s4', 's3', 's2']);
  });
});
