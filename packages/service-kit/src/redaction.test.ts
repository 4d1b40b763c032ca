import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createServiceLogger } from './logging.ts';
import { redactAttributes, SECRET_FIELDS, redactUrl } from './redaction.ts';

const SECRET = 'S3cr3t-value-that-must-not-leave';

describe('redactAttributes (what a span may carry)', () => {
  it.each([
    [
      'url.full keeps the URL without its query',
      'url.full',
      `http://h/cb?code=${SECRET}&state=x`,
      'http://h/cb',
    ],
    ['http.url likewise', 'http.url', `http://h/a?login_challenge=${SECRET}`, 'http://h/a'],
    ['http.target likewise', 'http.target', `/oauth2/auth?state=${SECRET}#frag`, '/oauth2/auth'],
    ['a referer header likewise', 'http.request.header.referer', `http://h/x?token=${SECRET}`, 'http://h/x'],
    ['url.path is kept', 'url.path', '/self-service/login', '/self-service/login'],
    [
      'the interaction id (a cookie value) leaves the resume path',
      'url.path',
      `/oauth2/auth/${SECRET}`,
      '/oauth2/auth/:uid',
    ],
    ['likewise in a full URL', 'url.full', `http://h/oauth2/auth/${SECRET}?x=1`, 'http://h/oauth2/auth/:uid'],
    ['the authorize endpoint itself is kept', 'url.path', '/oauth2/auth', '/oauth2/auth'],
    [
      "a URL's credentials are replaced",
      'url.full',
      `https://admin:${SECRET}@h:8443/scim/v2/Users?filter=x`,
      'https://REDACTED:REDACTED@h:8443/scim/v2/Users',
    ],
    ['a user name alone likewise', 'url.full', `http://${SECRET}@h/`, 'http://REDACTED:REDACTED@h/'],
    ['an @ in the path is kept', 'url.full', 'http://h/members/@me', 'http://h/members/@me'],
    ['a route is kept', 'http.route', '/self-service/login/flows', '/self-service/login/flows'],
  ])('%s', (_name, key, value, expected) => {
    expect(redactAttributes({ [key]: value })).toEqual({ [key]: expected });
  });

  it.each([
    'url.query',
    'http.request.header.authorization',
    'http.request.header.cookie',
    'http.request.header.x-session-token',
    'http.request.header.x-csrf-token',
    'http.response.header.set-cookie',
    ...SECRET_FIELDS.map((f) => `app.${f}`),
    'password',
    'enduser.Refresh_Token',
  ])('drops %s whole', (key) => {
    expect(redactAttributes({ [key]: SECRET, 'http.response.status_code': 200 })).toEqual({
      'http.response.status_code': 200,
    });
  });

  it('keeps what is no secret, of every type', () => {
    const attributes = {
      'server.port': 4433,
      'db.statement': 'select 1 where a = $1',
      ok: true,
      list: ['a'],
    };
    expect(redactAttributes(attributes)).toEqual(attributes);
  });
});

describe('the logs follow the same lists', () => {
  it('a log line carries no credential header, secret field or query string', () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const log = createServiceLogger('test', 'info', { destination });
    log.info({
      req: { method: 'GET', url: `/callback?code=${SECRET}`, headers: { authorization: SECRET } },
      headers: { cookie: SECRET, 'x-session-token': SECRET },
      body: Object.fromEntries(SECRET_FIELDS.map((f) => [f, SECRET])),
      ...Object.fromEntries(SECRET_FIELDS.map((f) => [f, SECRET])),
    });
    expect(lines.join('')).toContain('/callback');
    expect(lines.join('')).not.toContain(SECRET);
    expect(redactUrl('/a?b#c')).toBe('/a');
    expect(lines.join('')).not.toContain('code=');
  });
});
