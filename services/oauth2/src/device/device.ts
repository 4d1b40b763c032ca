import { createHash, randomBytes } from 'node:crypto';
import { sql, type Database } from '@acme/db';
import type { Middleware } from 'koa';
import type { AdapterPayload, KoaContextWithOIDC } from 'oidc-provider';
import { z } from 'zod';
import { clientById, deviceClientById, defaultClient, type OAuth2Runtime } from '../context.ts';
import { OAuth2Error, refuseInKoa } from '../errors.ts';
import { epochTime } from '../interactions/challenge.ts';
import { parseBody } from '../interactions/login.ts';
import type { RateLimiter } from '@acme/db/rate-limit';

/**
 * The device authorization grant (RFC 8628) on Hydra's wire, on oidc-provider's `deviceFlow`:
 *
 * 1. `POST /oauth2/device/auth` (the library) → device_code `ory_dc_…`, user_code `WDJB-MJHT`
 *    (8 of 20 consonants), `verification_uri = <app>/account/device`, `expires_in`, `interval`.
 *    Limited per IP.
 * 2. The app sends the browser to `GET /oauth2/device/verify`, which answers 302
 *    `<app>/account/device?device_challenge=…` and binds the challenge to that browser (cookie).
 * 3. The user service sends `PUT /admin/oauth2/auth/requests/device/accept?device_challenge=`
 *    `{user_code}`. Every attempt counts against the IP that fetched the challenge (a correct code
 *    is refunded); a user code is accepted once. Answer: `redirect_to =
 *    <issuer>/oauth2/device/verify?device_verifier=…` (one use, only in the bound browser).
 * 4. That GET hands a one-time ticket to the library's own confirmation form (auto-posted), which
 *    runs the usual login and consent challenges; consent of a device client is never skipped.
 * 5. The library marks the device code approved (or denied) and we redirect to the app's page.
 * Polling faster than `interval` answers `slow_down` and adds 5 s (RFC 8628 §3.5).
 */

export const DEVICE_ROUTES = {
  device_authorization: '/oauth2/device/auth',
  code_verification: '/oauth2/device/verify',
} as const;

const CHALLENGE_MODEL = 'DeviceChallenge';
const VERIFIER_MODEL = 'DeviceVerifier';
const TICKET_MODEL = 'DeviceTicket';
const CLAIM_MODEL = 'DeviceCodeClaim';
const DEVICE_BINDING_COOKIE = 'ory_hydra_device_csrf';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const SLOW_DOWN_STEP = 5;

interface ChallengeRecord {
  ip: string;
  binding: string;
  origin: string;
}
interface DeviceCodeClaim {
  origin: string;
}
interface VerifierRecord {
  challenge: string;
  userCode: string;
}

const newSecret = () => randomBytes(32).toString('base64url');
const digest = (value: string) => createHash('sha256').update(value).digest('base64url');
const asPayload = (value: object) => value as unknown as AdapterPayload;

/** oidc-provider's user-code normalisation: upper case, letters and digits only (hyphen optional). */
function normalizeUserCode(input: string): string {
  return input.toUpperCase().replace(/[^A-Z0-9]/g, '');
}

export interface DeviceLimiters {
  authorization: RateLimiter;
  userCode: RateLimiter;
}

/** The app page a device client's person is sent to (the first application's by default). */
function verificationOrigin(rt: Pick<OAuth2Runtime, 'config'>, clientId: unknown): string {
  return deviceClientById(rt.config, clientId)?.verification_origin ?? defaultClient(rt.config).origin;
}

/**
 * Where a device sign-in's login and consent pages are: the application named by the login accept's
 * `context.application` (the user service names the application that signed a Microsoft 365 person
 * in, e.g. MAGIC after Platform sent them there), else the application whose device page took the
 * user code, else the device client's verification page.
 */
export async function deviceInteractionOrigin(
  rt: Pick<OAuth2Runtime, 'config' | 'adapters'>,
  at: { deviceCode: string | undefined; clientId: unknown; login: unknown },
): Promise<string> {
  const named = clientById(
    rt.config,
    (at.login as { context?: { application?: unknown } })?.context?.application,
  );
  if (named) return named.origin;
  if (typeof at.deviceCode === 'string') {
    const claim = (await rt.adapters.get(CLAIM_MODEL).findRecord(at.deviceCode))?.payload as
      Partial<DeviceCodeClaim> | undefined;
    if (typeof claim?.origin === 'string') return claim.origin;
  }
  return verificationOrigin(rt, at.clientId);
}

export function devicePage(origin: string, query: Record<string, string> = {}): string {
  const url = new URL(`${origin}/account/device`);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  return url.toString();
}

const refuse = refuseInKoa;

async function readForm(ctx: Parameters<Middleware>[0]): Promise<URLSearchParams | undefined> {
  if (!ctx.is('application/x-www-form-urlencoded')) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  // Through `iterator()`, which the unstorable-text guard replays after it has read the body.
  for await (const chunk of ctx.req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    size += (chunk as Buffer).length;
    if (size > 8 * 1024) return undefined;
    chunks.push(chunk as Buffer);
  }
  // Read: oidc-provider then takes the body set on the request instead of reading it again.
  Object.defineProperty(ctx.req, 'readable', { value: false, configurable: true });
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

type Ctx = Parameters<Middleware>[0];
type Next = () => Promise<unknown>;
type DeviceHandler = (deps: DeviceDeps, ctx: Ctx, next: Next) => Promise<unknown>;
interface DeviceDeps {
  rt: OAuth2Runtime;
  db: Database;
  limiters: DeviceLimiters;
}

/** `POST /oauth2/device/auth`: limited per IP; the library's answer gets our verification URIs. */
async function deviceAuthorization({ rt, limiters }: DeviceDeps, ctx: Ctx, next: Next) {
  const limit = await limiters.authorization.hit(ctx.ip, rt.clock.now());
  if (!limit.allowed) {
    ctx.set('Retry-After', String(limit.retryAfterSec));
    return refuse(ctx, 429, 'too_many_requests', 'Too many device codes were requested. Try again later.');
  }
  await next();
  const body = ctx.body as Record<string, unknown> | undefined;
  if (ctx.status === 200 && body && typeof body.user_code === 'string') {
    const clientId = (ctx as unknown as KoaContextWithOIDC).oidc?.client?.clientId;
    const origin = verificationOrigin(rt, clientId);
    ctx.body = {
      ...body,
      verification_uri: devicePage(origin),
      verification_uri_complete: devicePage(origin, { user_code: body.user_code }),
      interval: rt.config.device.pollInterval,
    };
  }
}

/**
 * `GET /oauth2/device/verify`: without a verifier, a new challenge bound to this browser; with one
 * (once, in the bound browser only), the library's confirmation form with a one-time ticket.
 */
async function verifyPage({ rt }: DeviceDeps, ctx: Ctx, next: Next) {
  const verifier = ctx.query.device_verifier;
  if (verifier === undefined) return startChallenge(rt, ctx);
  if (typeof verifier !== 'string' || verifier.length > 128) {
    return refuse(ctx, 400, 'invalid_request', 'The device verifier is invalid.');
  }
  const verifiers = rt.adapters.get(VERIFIER_MODEL);
  const id = digest(verifier);
  const record = (await verifiers.findRecord(id))?.payload as unknown as VerifierRecord | undefined;
  const fresh = record !== undefined && (await verifiers.consumeOnce(id));
  const challenge = record
    ? ((await rt.adapters.get(CHALLENGE_MODEL).findRecord(record.challenge))?.payload as unknown as
        ChallengeRecord | undefined)
    : undefined;
  if (!record || !fresh || !challenge) {
    return refuse(
      ctx,
      400,
      'invalid_request',
      'The device verifier is invalid, expired or was already used.',
    );
  }
  const cookie = ctx.cookies.get(DEVICE_BINDING_COOKIE);
  if (!cookie || digest(cookie) !== challenge.binding) {
    return refuse(
      ctx,
      403,
      'access_denied',
      'The device code was entered in another browser. Open the device page again in this browser.',
    );
  }
  // The library's form carries a one-time ticket, never the user code itself.
  const ticket = newSecret();
  await rt.adapters
    .get(TICKET_MODEL)
    .upsert(digest(ticket), asPayload({ userCode: record.userCode }), rt.config.ttl.interaction);
  ctx.query = { user_code: ticket };
  return next();
}

/** `POST /oauth2/device/verify`: only the ticket's auto-post gets through (user codes are checked by the admin accept alone). */
async function confirmTicket({ rt }: DeviceDeps, ctx: Ctx, next: Next) {
  const form = await readForm(ctx);
  const ticket = form?.get('user_code');
  const xsrf = form?.get('xsrf');
  const tickets = rt.adapters.get(TICKET_MODEL);
  const record =
    ticket && xsrf
      ? ((await tickets.findRecord(digest(ticket)))?.payload as { userCode?: string })
      : undefined;
  if (!record?.userCode || !(await tickets.consumeOnce(digest(ticket!)))) {
    return refuse(
      ctx,
      400,
      'invalid_request',
      'The device verification request is invalid or was already used.',
    );
  }
  (ctx.request as unknown as { body: unknown }).body = { xsrf, user_code: record.userCode, confirm: 'yes' };
  return next();
}

/** `POST /oauth2/token` of the device grant: `expired_token` for an expired code, `slow_down` for fast polls. */
async function devicePoll({ rt, db }: DeviceDeps, ctx: Ctx, next: Next) {
  await next();
  const oidc = (ctx as unknown as KoaContextWithOIDC).oidc;
  const body = ctx.body as { error?: string } | undefined;
  const deviceCode = oidc?.params?.device_code;
  if (oidc?.params?.grant_type !== DEVICE_GRANT || typeof deviceCode !== 'string') return;
  if (body?.error === 'invalid_grant' && (await expiredRow(db, 'id', deviceCode, rt.clock.now()))) {
    // The adapter hides expired rows; the RFC's answer for them is expired_token.
    ctx.body = { error: 'expired_token', error_description: 'The device code has expired.' };
    return;
  }
  if (
    ctx.status === 400 &&
    body?.error === 'authorization_pending' &&
    (await pollTooFast(db, digest(deviceCode), rt.clock.now(), rt.config.device))
  ) {
    ctx.body = {
      error: 'slow_down',
      error_description: `Polling too fast: wait at least the interval between requests (now ${SLOW_DOWN_STEP} s longer).`,
    };
  }
}

/** A new challenge for this browser (bound by a cookie), sent on to the app's device page. */
async function startChallenge(rt: OAuth2Runtime, ctx: Ctx) {
  const { config } = rt;
  // The application whose device page asks (`client_id` = its own client) gets the challenge back
  // on its own origin; otherwise the device client's verification page.
  const origin =
    clientById(config, ctx.query.client_id)?.origin ?? verificationOrigin(rt, ctx.query.client_id);
  const challenge = newSecret();
  const binding = newSecret();
  const record: ChallengeRecord = { ip: ctx.ip, binding: digest(binding), origin };
  await rt.adapters.get(CHALLENGE_MODEL).upsert(challenge, asPayload(record), config.ttl.interaction);
  ctx.cookies.set(DEVICE_BINDING_COOKIE, binding, {
    httpOnly: true,
    sameSite: 'lax',
    path: DEVICE_ROUTES.code_verification,
    maxAge: config.ttl.interaction * 1000,
    secure: ctx.secure,
    overwrite: true,
  });
  ctx.status = 302;
  ctx.set('Cache-Control', 'no-store');
  ctx.redirect(devicePage(origin, { device_challenge: challenge }));
}

/** One handler per endpoint of the device grant, keyed by `METHOD path`; every other request passes. */
const DEVICE_HANDLERS = new Map<string, DeviceHandler>([
  [`POST ${DEVICE_ROUTES.device_authorization}`, deviceAuthorization],
  [`GET ${DEVICE_ROUTES.code_verification}`, verifyPage],
  [`POST ${DEVICE_ROUTES.code_verification}`, confirmTicket],
  ['POST /oauth2/token', devicePoll],
]);

/** Public-side middleware of the device grant (device authorization, verification, polling). */
export function deviceEndpoints(rt: OAuth2Runtime, db: Database, limiters: DeviceLimiters): Middleware {
  const deps: DeviceDeps = { rt, db, limiters };
  return async (ctx, next) => {
    const handler = DEVICE_HANDLERS.get(`${ctx.method} ${ctx.path}`);
    return handler ? handler(deps, ctx, next) : next();
  };
}

/**
 * Records a poll of a pending device code. True when it came sooner than the current interval
 * after the previous one; then the interval grows by 5 s for every later poll.
 */
async function pollTooFast(
  db: Database,
  id: string,
  now: Date,
  device: { pollInterval: number; codeTtl: number },
): Promise<boolean> {
  const nowIso = now.toISOString();
  const expires = new Date(now.getTime() + device.codeTtl * 1000).toISOString();
  const inserted = await sql<{ id: string }>`
    insert into oauth2_device_polls (id, last_polled_at, interval_s, expires_at)
    values (${id}, ${nowIso}::timestamptz, ${device.pollInterval}, ${expires}::timestamptz)
    on conflict (id) do nothing returning id`.execute(db.kysely);
  if (inserted.rows.length === 1) return false;
  // One row lock: of parallel polls at most one finds the interval elapsed.
  const onTime = await sql<{ id: string }>`
    update oauth2_device_polls set last_polled_at = ${nowIso}::timestamptz
    where id = ${id} and last_polled_at + make_interval(secs => interval_s) <= ${nowIso}::timestamptz
    returning id`.execute(db.kysely);
  if (onTime.rows.length === 1) return false;
  await sql`
    update oauth2_device_polls set last_polled_at = ${nowIso}::timestamptz, interval_s = interval_s + ${SLOW_DOWN_STEP}
    where id = ${id}`.execute(db.kysely);
  return true;
}

/** Whether a DeviceCode row with this id or user code exists but has expired. */
async function expiredRow(
  db: Database,
  column: 'id' | 'user_code',
  value: string,
  now: Date,
): Promise<boolean> {
  const rows = await sql<{ id: string }>`
    select id from oauth2_models
    where model = 'DeviceCode' and ${sql.ref(column)} = ${value}
      and expires_at <= ${now.toISOString()}::timestamptz
    limit 1`.execute(db.kysely);
  return rows.rows.length === 1;
}

const AcceptBody = z.object({ user_code: z.string().min(1).max(64) });

/** `PUT /admin/oauth2/auth/requests/device/accept?device_challenge=` `{user_code}` → `{redirect_to}`. */
export async function acceptDeviceRequest(
  rt: OAuth2Runtime,
  db: Database,
  limiter: RateLimiter,
  challenge: string,
  rawBody: unknown,
): Promise<{ redirect_to: string }> {
  const body = parseBody(AcceptBody, rawBody);
  const challenges = rt.adapters.get(CHALLENGE_MODEL);
  const stored = await challenges.findRecord(challenge);
  if (!stored) throw OAuth2Error.notFound('Unable to locate the device request.');
  if (stored.consumedAt !== undefined) {
    throw OAuth2Error.alreadyHandled(`${rt.config.issuer}${DEVICE_ROUTES.code_verification}`);
  }
  const record = stored.payload as unknown as ChallengeRecord;
  const now = rt.clock.now();
  const key = record.ip;
  const limit = await limiter.hit(key, now);
  if (!limit.allowed) {
    throw new OAuth2Error(
      429,
      'too_many_requests',
      'Too many device codes were tried from this address. Wait a few minutes and try again.',
    );
  }

  const normalized = normalizeUserCode(body.user_code);
  const code = normalized
    ? await rt.provider.DeviceCode.findByUserCode(normalized, { ignoreExpiration: true })
    : undefined;
  if (!code) {
    if (normalized && (await expiredRow(db, 'user_code', normalized, now))) {
      throw new OAuth2Error(400, 'expired_token', 'The user code has expired.');
    }
    throw OAuth2Error.invalidRequest('The user code is invalid.');
  }
  if (code.isExpired) throw new OAuth2Error(400, 'expired_token', 'The user code has expired.');
  const used = new OAuth2Error(400, 'invalid_grant', 'The user code has already been used.');
  if (code.error || code.accountId || code.inFlight) throw used;
  await limiter.refund(key);

  if (!(await challenges.consumeOnce(challenge))) {
    throw OAuth2Error.alreadyHandled(`${rt.config.issuer}${DEVICE_ROUTES.code_verification}`);
  }
  // A user code is accepted once, whatever happens next. The claim keeps which application's device
  // page took the code: its login and consent pages carry the sign-in on (deviceInteractionOrigin).
  const ttl = Math.max(1, (code.exp ?? epochTime()) - epochTime());
  const claim = JSON.stringify({ origin: record.origin } satisfies DeviceCodeClaim);
  const claimed = await sql<{ id: string }>`
    insert into oauth2_models (model, id, payload, expires_at)
    values (${CLAIM_MODEL}, ${code.jti}, ${claim}::jsonb, ${new Date(now.getTime() + ttl * 1000).toISOString()}::timestamptz)
    on conflict (model, id) do nothing returning id`.execute(db.kysely);
  if (claimed.rows.length !== 1) throw used;

  const verifier = newSecret();
  await rt.adapters
    .get(VERIFIER_MODEL)
    .upsert(digest(verifier), asPayload({ challenge, userCode: normalized } satisfies VerifierRecord), ttl);
  const url = new URL(`${rt.config.issuer}${DEVICE_ROUTES.code_verification}`);
  url.searchParams.set('device_verifier', verifier);
  return { redirect_to: url.toString() };
}

/** The library's page hooks: errors and success go back to the app's device page. */
export function deviceFlowSources(rt: Pick<OAuth2Runtime, 'config' | 'adapters'>) {
  const back = async (ctx: KoaContextWithOIDC, query: Record<string, string>) => {
    const origin = await deviceInteractionOrigin(rt, {
      deviceCode: ctx.oidc.deviceCode?.jti,
      clientId: ctx.oidc.client?.clientId ?? ctx.oidc.deviceCode?.clientId,
      // The consent's interaction remembers the login (a denial's result holds only the error).
      login:
        (ctx.oidc.entities.Interaction?.lastSubmission as { login?: unknown } | undefined)?.login ??
        (ctx.oidc.result as { login?: unknown } | undefined)?.login,
    });
    ctx.status = 303;
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(devicePage(origin, query));
  };
  return {
    userCodeInputSource: async (ctx: KoaContextWithOIDC, _form: string, _out?: unknown, err?: Error) => {
      const name = err?.name;
      const reason =
        name === 'ExpiredError'
          ? 'expired'
          : name === 'AlreadyUsedError'
            ? 'used'
            : name === 'AbortedError'
              ? 'denied'
              : 'invalid';
      await back(ctx, { error: reason });
    },
    userCodeConfirmSource: async (ctx: KoaContextWithOIDC) => {
      // Never reached: the ticket's post always confirms. Send the person back to start again.
      await back(ctx, { error: 'invalid' });
    },
    successSource: async (ctx: KoaContextWithOIDC) => {
      await back(ctx, { status: 'approved' });
    },
  };
}
