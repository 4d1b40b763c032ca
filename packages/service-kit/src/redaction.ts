import type { Attributes, AttributeValue } from '@opentelemetry/api';

// What never leaves a process in a log line or a trace span, declared once: the logs' redaction
// paths (logging.ts) and the spans' attribute filter (tracing.ts) are both built from these lists.

/** Body and object fields that hold a secret: passwords, one-time and authorization codes, tokens. */
export const SECRET_FIELDS = [
  'password',
  'code',
  'recovery_code',
  'totp_code',
  'token',
  'session_token',
  'csrf_token',
  'access_token',
  'refresh_token',
  'id_token',
  'code_verifier',
  'client_secret',
] as const;

/** Request headers that carry credentials (lower case, as Node gives them). */
export const SECRET_REQUEST_HEADERS = ['authorization', 'cookie', 'x-session-token', 'x-csrf-token'] as const;

/** Response headers that carry credentials. */
export const SECRET_RESPONSE_HEADERS = ['set-cookie'] as const;

/**
 * Path segments that are a browser's credential: the authorization server's interaction id, which
 * is also the value of its `_interaction` cookie (the resume path `/oauth2/auth/<uid>`). Each with
 * the text a path holds when the pattern can match it: most paths hold none, and skip the pattern.
 */
const SECRET_PATH_SEGMENTS: { marker: string; pattern: RegExp; placeholder: string }[] = [
  { marker: '/oauth2/auth/', pattern: /(\/oauth2\/auth\/)[^/?#]+/g, placeholder: '$1:uid' },
];

/** A URL's user information: after its scheme's `//`, before the first `@` of its authority. */
const USER_INFO = /^([a-z][a-z\d+.-]*:\/\/)[^/@]*@/i;

/**
 * A URL or request target as logs and spans show it: without its query string and fragment (codes,
 * states, challenges and tokens travel there: `/callback?code=…`, `/login/accept?login_challenge=…`)
 * and with credentials in its authority and path segments that are credentials replaced by
 * placeholders.
 */
export function redactUrl(url: string): string {
  const cut = url.search(/[?#]/);
  let out = cut < 0 ? url : url.slice(0, cut);
  // Credentials in the authority (`https://user:password@host/`), as OpenTelemetry's conventions
  // write them: `REDACTED:REDACTED`.
  if (out.includes('@')) out = out.replace(USER_INFO, '$1REDACTED:REDACTED@');
  for (const { marker, pattern, placeholder } of SECRET_PATH_SEGMENTS)
    if (out.includes(marker)) out = out.replace(pattern, placeholder);
  return out;
}

/** Span attributes whose value is a URL, a path or a request target: kept, redacted (redactUrl). */
const URL_ATTRIBUTES = new Set([
  'url.full',
  'url.path',
  'http.url',
  'http.target',
  'url.original',
  'http.request.header.referer',
]);

/** Span attributes dropped whole: the query string on its own, and what a header capture could add. */
const DROPPED_ATTRIBUTES = new Set([
  'url.query',
  ...SECRET_REQUEST_HEADERS.map((h) => `http.request.header.${h}`),
  ...SECRET_RESPONSE_HEADERS.map((h) => `http.response.header.${h}`),
]);

const SECRET_NAMES = new Set<string>(SECRET_FIELDS);

/** An attribute whose last name segment is a secret field (`enduser.password`, `oauth.code`). */
function isSecretName(key: string): boolean {
  const last = key.slice(key.lastIndexOf('.') + 1).toLowerCase();
  return SECRET_NAMES.has(last);
}

/**
 * One attribute's value as it may be exported, or nothing: URLs without their query strings, and
 * no query string, credential header or secret-named field at all.
 */
export function exportedValue(key: string, value: AttributeValue | undefined): AttributeValue | undefined {
  if (value === undefined) return undefined;
  const rule = ruleOf(key);
  if (rule === 'drop') return undefined;
  return rule === 'url' && typeof value === 'string' ? redactUrl(value) : value;
}

type Rule = 'drop' | 'url' | 'keep';

/** The rule of each attribute name seen (a span's names are few and recur), kept for the first 1,000. */
const rules = new Map<string, Rule>();

function ruleOf(key: string): Rule {
  let rule = rules.get(key);
  if (rule) return rule;
  rule = DROPPED_ATTRIBUTES.has(key) || isSecretName(key) ? 'drop' : URL_ATTRIBUTES.has(key) ? 'url' : 'keep';
  if (rules.size < 1000) rules.set(key, rule);
  return rule;
}

/**
 * Span (or span event) attributes as they may be exported: URLs without their query strings, and
 * no query string, credential header or secret-named field at all. The instrumentations record
 * URLs, routes, statuses and SQL with placeholders; this is the rule that holds whatever they add.
 */
export function redactAttributes(attributes: Attributes): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    const exported = exportedValue(key, value);
    if (exported !== undefined) out[key] = exported;
  }
  return out;
}
