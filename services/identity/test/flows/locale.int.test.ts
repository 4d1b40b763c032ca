import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecoveryFlow, SettingsFlow, UiNode } from '@ory/client';
import { createIdentityAdminClient } from '@acme/identity-contract/admin-client';
import {
  Browser,
  DEMO_PASSWORD,
  createUser,
  csrfOf,
  login,
  startHarness,
  submitFlow,
  traits,
  type Harness,
} from '../harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const GERMAN = { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' };
const ENGLISH = { 'accept-language': 'en-GB,en;q=0.9' };

const texts = (f: { ui: { messages?: { id: number; text: string }[] } }) =>
  (f.ui.messages ?? []).map((m) => [m.id, m.text]);
const byName = (f: { ui: { nodes: UiNode[] } }, name: string) =>
  f.ui.nodes.find((n) => (n.attributes as { name?: string }).name === name);

async function startRecovery(b: Browser, headers: Record<string, string> = {}) {
  const res = await b.get('/self-service/recovery/browser', { accept: 'json', headers });
  expect(res.status, res.text).toBe(200);
  return res.body as RecoveryFlow;
}

async function sendCode(b: Browser, email: string, headers: Record<string, string>) {
  const f = await startRecovery(b, headers);
  const res = await b.post(`/self-service/recovery?flow=${f.id}`, {
    json: { csrf_token: csrfOf(f), method: 'code', email },
    accept: 'json',
    headers,
  });
  expect(res.status, res.text).toBe(200);
  return res.body as RecoveryFlow;
}

async function createGermanUser(email: string): Promise<string> {
  const created = await createIdentityAdminClient({ baseUrl: h.adminUrl }).createIdentity({
    schema_id: 'default',
    traits: traits(email, { locale: 'de' }),
    credentials: { password: { config: { password: DEMO_PASSWORD } } },
    verifiable_addresses: [{ value: email, verified: true, via: 'email' }],
  });
  return created.id;
}

describe('flow messages in the reader’s locale', () => {
  it('a recovery flow asked for in German shows German messages with the same ids; the same flow reads in English for an English reader', async () => {
    const b = new Browser(h.publicUrl);
    const sent = await sendCode(b, 'nobody-de@example.com', GERMAN);
    expect(sent.state).toBe('sent_email');
    expect(texts(sent)).toEqual([
      [
        1060003,
        'Wir haben eine E-Mail mit einem Wiederherstellungscode an die angegebene Adresse gesendet. Falls keine E-Mail ankommt, prüfen Sie die Schreibweise der Adresse und verwenden Sie die Adresse, mit der Sie sich registriert haben.',
      ],
    ]);
    expect(byName(sent, 'code')!.meta.label).toEqual({
      id: 1070010,
      text: 'Wiederherstellungscode',
      type: 'info',
    });
    // The stored flow is drawn again for each reader: English texts exactly as before.
    const again = await b.get(`/self-service/recovery/flows?id=${sent.id}`, {
      accept: 'json',
      headers: ENGLISH,
    });
    expect(again.status).toBe(200);
    expect(texts(again.body)).toEqual([
      [
        1060003,
        'An email containing a recovery code has been sent to the email address you provided. If you have not received an email, check the spelling of the address and make sure to use the address you registered with.',
      ],
    ]);
    expect(byName(again.body, 'code')!.meta.label).toEqual({
      id: 1070010,
      text: 'Recovery code',
      type: 'info',
    });
    expect(again.text).not.toContain('"i18n"');
    // A wrong code: the error in German, id 4060006.
    const wrong = await submitFlow(b, 'recovery', sent, {
      csrf_token: csrfOf(sent),
      method: 'code',
      code: '000000',
    });
    const german = await b.post(`/self-service/recovery?flow=${sent.id}`, {
      json: { csrf_token: csrfOf(sent), method: 'code', code: '000001' },
      accept: 'json',
      headers: GERMAN,
    });
    expect(texts(wrong.body)).toEqual([
      [4060006, 'The recovery code is invalid or has already been used. Please try again.'],
    ]);
    expect(texts(german.body)).toEqual([
      [
        4060006,
        'Der Wiederherstellungscode ist ungültig oder wurde bereits verwendet. Bitte versuchen Sie es erneut.',
      ],
    ]);
  });

  it('without Accept-Language, and with an oversized or malformed one, the texts are English and nothing fails', async () => {
    const b = new Browser(h.publicUrl);
    const english = 'An email containing a recovery code has been sent';
    const headerSets: Record<string, string>[] = [
      {},
      { 'accept-language': `${'x-'.repeat(4000)}de` },
      { 'accept-language': 'de;q=abc, ;;;, __proto__, *;q=2' },
      { 'accept-language': 'fr-CH, it;q=0.8' },
    ];
    for (const headers of headerSets) {
      const sent = await sendCode(b, 'nobody-en@example.com', headers);
      expect(sent.ui.messages![0]!.text.startsWith(english)).toBe(true);
    }
  });

  it('50 parallel requests with an oversized Accept-Language are all answered, in English', async () => {
    const header = { 'accept-language': `de;q=0.1,${'en-'.repeat(2000)}x` };
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        new Browser(h.publicUrl).get('/self-service/recovery/browser', { accept: 'json', headers: header }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    const f = answers[0]!.body as RecoveryFlow;
    expect(byName(f, 'email')!.meta.label).toEqual({ id: 1070007, text: 'Email', type: 'info' });
  });

  it('a signed-in person’s traits.locale wins over the browser’s Accept-Language', async () => {
    await createGermanUser('sie@example.com');
    const b = new Browser(h.publicUrl);
    expect((await login(b, 'sie@example.com')).status).toBe(200);
    const res = await b.get('/self-service/settings/browser', { accept: 'json', headers: ENGLISH });
    expect(res.status).toBe(200);
    expect(byName(res.body, 'method')).toBeDefined();
    const save = res.body.ui.nodes.find(
      (n: UiNode) => (n.attributes as { value?: unknown }).value === 'profile',
    );
    expect(save.meta.label).toEqual({ id: 1070003, text: 'Speichern', type: 'info' });
  });
});

describe('a shared cache', () => {
  /** The answer's `Vary` field names, lower-cased. */
  const varied = (res: { headers: Headers }) =>
    (res.headers.get('vary') ?? '').split(',').map((name) => name.trim().toLowerCase());

  it('does not serve one person’s language or messages to another: every localised flow answer says Vary: Accept-Language, beside CORS’s Origin', async () => {
    const b = new Browser(h.publicUrl);
    const origin = h.config.corsOrigins[0]!;
    const started = await b.get('/self-service/recovery/browser', {
      accept: 'json',
      headers: { ...GERMAN, origin },
    });
    expect(started.status).toBe(200);
    expect(varied(started)).toEqual(expect.arrayContaining(['origin', 'accept-language']));
    const f = started.body as RecoveryFlow;
    const again = await b.get(`/self-service/recovery/flows?id=${f.id}`, {
      accept: 'json',
      headers: ENGLISH,
    });
    expect(again.status).toBe(200);
    expect(varied(again)).toContain('accept-language');
    // A flow answered with an error (400, the flow with its message) varies too, and says it once.
    const bad = await b.post(`/self-service/recovery?flow=${f.id}`, {
      body: '{"method":',
      accept: 'json',
      headers: { 'content-type': 'application/json', ...GERMAN },
    });
    expect(bad.status).toBe(400);
    expect(varied(bad).filter((name) => name === 'accept-language')).toHaveLength(1);
    // An answer whose words do not depend on the reader's language does not vary by it.
    const who = await b.get('/sessions/whoami', { accept: 'json', headers: GERMAN });
    expect(varied(who)).not.toContain('accept-language');
  });
});

describe('a body that does not decode', () => {
  it('reads in German for a German reader: same id 4000001, English kept as the context reason', async () => {
    const b = new Browser(h.publicUrl);
    const f = await startRecovery(b);
    const post = (headers: Record<string, string>) =>
      b.post(`/self-service/recovery?flow=${f.id}`, {
        body: '{"method":',
        accept: 'json',
        headers: { 'content-type': 'application/json', ...headers },
      });
    const english = 'Unable to decode JSON payload: the body is not valid JSON.';
    const de = await post(GERMAN);
    expect(de.status).toBe(400);
    expect(de.body.ui.messages).toEqual([
      {
        id: 4000001,
        text: 'Die Anfrage konnte nicht gelesen werden: Der Inhalt ist kein gültiges JSON.',
        type: 'error',
        context: { reason: english },
      },
    ]);
    const en = await post(ENGLISH);
    expect(en.body.ui.messages).toEqual([
      { id: 4000001, text: english, type: 'error', context: { reason: english } },
    ]);
  });
});

describe('only flow messages are redrawn', () => {
  it('stored JSON that looks like a message (an identity’s metadata) is never rewritten', async () => {
    const lookalike = { id: 1050001, text: 'kept as stored', type: 'success', i18n: { key: 'saved' } };
    const adminApi = new Browser(h.adminUrl);
    const created = await adminApi.post('/admin/identities', {
      json: {
        schema_id: 'default',
        traits: traits('lookalike@example.com'),
        metadata_public: { note: lookalike },
      },
      accept: 'json',
    });
    expect(created.status, created.text).toBe(201);
    const res = await adminApi.get(`/admin/identities/${created.body.id}`, {
      accept: 'json',
      headers: GERMAN,
    });
    expect(res.status).toBe(200);
    expect(res.body.metadata_public).toEqual({ note: lookalike });
  });
});

describe('mails in the owner’s locale', () => {
  it('a person with traits.locale=de gets the recovery code mail in German, though the request asked for English', async () => {
    await createGermanUser('passwort@example.com');
    const b = new Browser(h.publicUrl);
    await sendCode(b, 'passwort@example.com', ENGLISH);
    const mail = h.mailbox.at(-1)!;
    expect(mail.to).toBe('passwort@example.com');
    expect(mail.subject).toBe(`Ihr Wiederherstellungscode für das Passwort bei ${h.config.appName}`);
    expect(mail.text).toContain('Guten Tag,');
    expect(mail.text).toMatch(/\n\d{6}\n/);
    expect(mail.html).toContain('<html lang="de">');
  });

  it('a person without a locale gets it in English, though the request asked for German', async () => {
    await createUser(h, 'plain@example.com');
    await sendCode(new Browser(h.publicUrl), 'plain@example.com', GERMAN);
    const mail = h.mailbox.at(-1)!;
    expect(mail.subject).toBe(`Your ${h.config.appName} password recovery code`);
    expect(mail.html).toContain('<html lang="en">');
  });
});

describe('the locale trait on the account page (profile method)', () => {
  it('saves traits.locale; the answer is then in German; an unknown locale is the validation error 4000001, never a 500', async () => {
    await createUser(h, 'sprache@example.com');
    const b = new Browser(h.publicUrl);
    await login(b, 'sprache@example.com');
    const f = (await b.get('/self-service/settings/browser', { accept: 'json' })).body as SettingsFlow;
    expect(byName(f, 'traits.locale')).toBeDefined();
    const bad = await submitFlow(b, 'settings', f, {
      csrf_token: csrfOf(f),
      method: 'profile',
      traits: { ...f.identity.traits, locale: 'xx' },
    });
    expect(bad.status).toBe(400);
    expect(byName(bad.body, 'traits.locale')!.messages).toEqual([
      expect.objectContaining({ id: 4000001, type: 'error' }),
    ]);
    const ok = await submitFlow(b, 'settings', f, {
      csrf_token: csrfOf(f),
      method: 'profile',
      traits: { ...f.identity.traits, locale: 'de' },
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.identity.traits.locale).toBe('de');
    expect(ok.body.ui.messages).toEqual([
      { id: 1050001, text: 'Ihre Änderungen wurden gespeichert.', type: 'success' },
    ]);
    const who = await b.get('/sessions/whoami', { accept: 'json' });
    expect(who.body.identity.traits.locale).toBe('de');
    expect(attrValue(byName(ok.body, 'traits.locale'))).toBe('de');
  });

  it('a profile validation error reads in German for a German reader: same id 4000001, English kept as the context reason', async () => {
    await createUser(h, 'pruefung@example.com');
    const b = new Browser(h.publicUrl);
    await login(b, 'pruefung@example.com');
    const f = (await b.get('/self-service/settings/browser', { accept: 'json' })).body as SettingsFlow;
    const submit = (headers: Record<string, string>) =>
      b.post(`/self-service/settings?flow=${f.id}`, {
        json: {
          csrf_token: csrfOf(f),
          method: 'profile',
          traits: { ...f.identity.traits, locale: 'xx', name: { first: 'x'.repeat(300) } },
        },
        accept: 'json',
        headers,
      });
    const field = (body: SettingsFlow, name: string) => byName(body, name)!.messages;
    const de = await submit(GERMAN);
    expect(de.status).toBe(400);
    const optionReason = 'locale: Invalid option: expected one of "en"|"de"';
    const lengthReason = 'name.first: Too big: expected string to have <=256 characters';
    expect(field(de.body, 'traits.locale')).toEqual([
      {
        id: 4000001,
        text: 'locale: Ungültige Auswahl: erwartet einer von "en"|"de"',
        type: 'error',
        context: { reason: optionReason },
      },
    ]);
    expect(field(de.body, 'traits.name.first')).toEqual([
      {
        id: 4000001,
        text: 'name.first: Zu lang: höchstens 256 Zeichen erlaubt',
        type: 'error',
        context: { reason: lengthReason },
      },
    ]);
    const en = await submit(ENGLISH);
    expect(en.status).toBe(400);
    expect(field(en.body, 'traits.locale')).toEqual([
      { id: 4000001, text: optionReason, type: 'error', context: { reason: optionReason } },
    ]);
    expect(field(en.body, 'traits.name.first')).toEqual([
      { id: 4000001, text: lengthReason, type: 'error', context: { reason: lengthReason } },
    ]);
  });

  it('an admin JSON Patch of other traits keeps the locale', async () => {
    const id = await createGermanUser('patch@example.com');
    const admin = createIdentityAdminClient({ baseUrl: h.adminUrl });
    await admin.patchIdentity(id, [{ op: 'replace', path: '/traits/name/first', value: 'Grete' }]);
    const got = await admin.getIdentity(id);
    expect(got!.traits).toMatchObject({ locale: 'de', name: { first: 'Grete' } });
  });
});

function attrValue(n: UiNode | undefined): unknown {
  return (n?.attributes as { value?: unknown } | undefined)?.value;
}
