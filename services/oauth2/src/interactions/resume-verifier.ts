import { createHash, randomBytes } from 'node:crypto';
import type { Middleware } from 'koa';
import { refuseInKoa } from '../errors.ts';
import type { AdapterPayload, Interaction } from 'oidc-provider';
import type { OAuth2Context, OAuth2Runtime } from '../context.ts';
import { epochTime } from './challenge.ts';

/**
 * Hydra's login and consent verifiers.
 *
 * Accepting a login or consent request answers `redirect_to = <issuer>/oauth2/auth/<uid>?login_verifier=…`
 * (or `consent_verifier=…`). The verifier is 256 random bits, stored only as its SHA-256 and usable
 * once. The authorization resumes only when BOTH hold:
 * - the request carries that verifier (only whoever accepted the request, i.e. the signed-in
 *   browser through the identity or user service, ever sees it), and
 * - the request carries the `_interaction_resume` cookie for this uid, which `/oauth2/auth` set in
 *   the browser that started the authorization.
 * So the browser that started an authorization cannot finish it with the challenge alone (the
 * attacker who sent a victim their `login_challenge` link), and a browser that only has the
 * verifier cannot finish someone else's authorization. A verifier presented without the binding
 * cookie also ends the authorization, so neither side can use it afterwards.
 */

export type VerifierKind = 'login' | 'consent';

const MODEL = 'ResumeVerifier';
const RESUME_PATH = /^\/oauth2\/(?:auth|device\/verify)\/([A-Za-z0-9_-]{1,128})$/;

interface VerifierRecord {
  uid: string;
  kind: VerifierKind;
}

const digest = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** Stores a one-time verifier for this interaction and returns the `redirect_to` that carries it. */
export async function resumeRedirect(
  rt: OAuth2Context,
  interaction: Interaction,
  kind: VerifierKind,
): Promise<string> {
  const verifier = randomBytes(32).toString('base64url');
  const ttl = Math.max(1, interaction.exp - epochTime());
  const record: VerifierRecord = { uid: interaction.uid, kind };
  await rt.adapters.get(MODEL).upsert(digest(verifier), record as unknown as AdapterPayload, ttl);
  const url = new URL(interaction.returnTo);
  url.searchParams.set(`${kind}_verifier`, verifier);
  return url.toString();
}

const refuse = refuseInKoa;

/** Pre-middleware on `GET /oauth2/auth/:uid`: no resume without a valid verifier in the right browser. */
export function resumeGuard(rt: OAuth2Runtime): Middleware {
  return async (ctx, next) => {
    const match = RESUME_PATH.exec(ctx.path);
    if (!match) return next();
    const uid = match[1]!;
    const { login_verifier: login, consent_verifier: consent } = ctx.query;
    const given = [login, consent].filter((v) => v !== undefined);
    const verifier = given.length === 1 && typeof given[0] === 'string' ? given[0] : undefined;
    const kind: VerifierKind = login !== undefined ? 'login' : 'consent';
    if (!verifier || verifier.length > 128) {
      return refuse(
        ctx,
        400,
        'invalid_request',
        'The authorization can only be resumed with the login or consent verifier issued when the request was accepted.',
      );
    }

    const verifiers = rt.adapters.get(MODEL);
    const id = digest(verifier);
    const record = (await verifiers.findRecord(id))?.payload as unknown as VerifierRecord | undefined;
    // One use only, whatever happens next.
    const fresh = record !== undefined && (await verifiers.consumeOnce(id));
    if (!record || !fresh || record.uid !== uid || record.kind !== kind) {
      return refuse(
        ctx,
        400,
        'invalid_request',
        'The login or consent verifier is invalid, expired or was already used.',
      );
    }

    const bound = ctx.cookies.get(rt.provider.cookieName('resume'), { signed: true });
    if (bound !== uid) {
      // The verifier reached another browser than the one that started the authorization:
      // end the authorization so that neither browser can finish it.
      await rt.adapters.get('Interaction').destroy(uid);
      return refuse(
        ctx,
        403,
        'access_denied',
        'The authorization was started in another browser. Start the sign-in again in this browser.',
      );
    }
    return next();
  };
}
