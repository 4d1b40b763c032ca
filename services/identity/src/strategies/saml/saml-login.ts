import { randomUUID } from 'node:crypto';
import type { UiText } from '@ory/client';
import type { IdentityContext } from '../../context.ts';
import type { FlowRow } from '../../db/schema.ts';
import { catalogue, messages, type MessageKey } from '../../ui/messages.ts';
import type { FieldMessage } from '../../ui/nodes.ts';
import { refusalMessage, resolveIdentity, type Person } from '../oidc/accounts.ts';
import { oidcServices } from '../oidc/oidc-login.ts';
import type { SamlProvider } from '../oidc/provider-directory.ts';
import {
  authnRequest,
  finishUrl,
  SamlValidationError,
  validateResponse,
  type SamlAssertion,
  type SamlFailure,
} from './service-provider.ts';

// SAML sign-in (issue 26) in three steps:
// 1. start: the login flow's submit with `method: oidc` (or `saml`) for a SAML provider stores a signed
//    AuthnRequest's id with the flow and sends the browser to the IdP (RelayState = the flow id);
// 2. acs: the IdP's cross-site POST. The answer is checked against the flow's AuthnRequest id; the
//    validated person waits in the request's row (never in a URL), and the browser goes on to
// 3. finish: a same-site GET that the engine lets through only with the flow's CSRF cookie; it finds or
//    creates the member and the session is issued.

/** How long a sign-in at the IdP may take (the login flow may live longer). */
const REQUEST_TTL_MS = 30 * 60 * 1000;

/** Everything the person reads about SAML sign-in, by what went wrong (catalogue keys). */
export const samlKey = {
  unknownProvider: 'ssoUnknownProvider',
  unreachable: 'ssoUnreachable',
  malformed: 'samlMalformed',
  status: 'samlStatus',
  signature: 'samlSignature',
  in_response_to: 'ssoForeignAnswer',
  expired: 'samlExpired',
  audience: 'samlAudience',
  destination: 'samlDestination',
  issuer: 'samlIssuer',
  replayed: 'samlReplayed',
  email: 'samlNoEmail',
  domain: 'ssoDomain',
  notFinished: 'samlNotFinished',
} as const satisfies Record<string, MessageKey>;

/** The English of each refusal (what the flow's message and its context `reason` say). */
export const samlText = Object.fromEntries(
  Object.entries(samlKey).map(([k, key]) => [k, catalogue.t('en', key)]),
) as Record<keyof typeof samlKey, string>;

/** A refusal: `reason` names it in the security event log; `identityId` when the person is known. */
interface Refusal {
  ok: false;
  reason: string;
  messages: FieldMessage[];
  identityId?: string;
}

export type SamlOutcome = { ok: true; redirectTo: string } | Refusal;

const refused = (reason: string, message: MessageKey | UiText, identityId?: string): Refusal => ({
  ok: false,
  reason,
  messages: [{ pointer: '#/', message: typeof message === 'string' ? messages.refusal(message) : message }],
  ...(identityId ? { identityId } : {}),
});

/** Step 1: a signed AuthnRequest for the flow. */
export async function startSamlLogin(
  ctx: IdentityContext,
  flow: FlowRow,
  provider: SamlProvider,
): Promise<SamlOutcome> {
  const { url, requestId } = await authnRequest(ctx.config, provider, flow.id);
  const now = ctx.clock.now();
  await ctx.db
    .insertInto('identity_saml_requests')
    .values({
      request_id: requestId,
      flow_id: flow.id,
      provider: provider.provider,
      created_at: now,
      expires_at: new Date(now.getTime() + REQUEST_TTL_MS),
      result: null,
      answered_at: null,
      finished_at: null,
    })
    .execute();
  return { ok: true, redirectTo: url };
}

async function samlProvider(ctx: IdentityContext, id: string): Promise<SamlProvider | Refusal> {
  try {
    const provider = await oidcServices(ctx).directory.get(id);
    if (provider?.protocol === 'saml') return provider;
    return refused('unknown_provider', samlKey.unknownProvider);
  } catch {
    return refused('directory_unreachable', samlKey.unreachable);
  }
}

/** The person the assertion names, through the provider's attribute mapping. */
function personOf(
  provider: SamlProvider,
  assertion: SamlAssertion,
): { ok: true; person: Person } | { ok: false; reason: 'email' | 'domain' } {
  const map = provider.saml.attributes;
  const first = (name: string) => {
    const v = assertion.attributes[name];
    const s = Array.isArray(v) ? v[0] : v;
    return s?.trim() ? s.trim() : undefined;
  };
  const email = (
    map.email.toLowerCase() === 'nameid' ? assertion.nameId.trim() : first(map.email)
  )?.toLowerCase();
  if (!email || email.length > 254 || !email.includes('@')) return { ok: false, reason: 'email' };
  // One organisation's IdP can only speak for that organisation's addresses.
  if (!provider.domains.includes(email.slice(email.lastIndexOf('@') + 1)))
    return { ok: false, reason: 'domain' };
  const firstName = first(map.firstName)?.slice(0, 100);
  const lastName = first(map.lastName)?.slice(0, 100);
  const rawGroups = assertion.attributes[map.groups];
  const groups = (Array.isArray(rawGroups) ? rawGroups : rawGroups ? [rawGroups] : [])
    .map((g) => g.trim().slice(0, 256))
    .filter(Boolean)
    .slice(0, 100);
  return {
    ok: true,
    person: {
      // The subject of the link: the NameID (a transient NameID simply links again by address).
      subject: assertion.nameId.trim() || email,
      email,
      ...(firstName ? { firstName } : {}),
      ...(lastName ? { lastName } : {}),
      ...(groups.length ? { groups } : {}),
    },
  };
}

/** Step 2: the IdP's POST to our ACS for `flow` (named by RelayState). */
export async function acceptSamlResponse(
  ctx: IdentityContext,
  flow: FlowRow,
  providerId: string,
  samlResponse: unknown,
): Promise<SamlOutcome> {
  const provider = await samlProvider(ctx, providerId);
  if ('ok' in provider) return provider;
  if (typeof samlResponse !== 'string' || samlResponse === '' || !/^[A-Za-z0-9+/=\s]+$/.test(samlResponse))
    return refused('malformed', samlKey.malformed);
  const now = ctx.clock.now();
  const open = await ctx.db
    .selectFrom('identity_saml_requests')
    .select('request_id')
    .where('flow_id', '=', flow.id)
    .where('provider', '=', provider.provider)
    .where('answered_at', 'is', null)
    .where('expires_at', '>', now)
    .execute();
  let assertion: SamlAssertion;
  try {
    assertion = await validateResponse(
      ctx.config,
      provider,
      samlResponse,
      open.map((r) => r.request_id),
      ctx.clock,
    );
  } catch (error) {
    if (error instanceof SamlValidationError) {
      const failure: SamlFailure = error.failure;
      return refused(`saml_${failure}`, samlKey[failure]);
    }
    throw error;
  }
  const person = personOf(provider, assertion);
  if (!person.ok) return refused(`assertion_${person.reason}`, samlKey[person.reason]);
  // One-time assertion ids: one insert on the primary key; a replay (even in parallel) finds it taken.
  const spent = await ctx.db
    .insertInto('identity_saml_spent_assertions')
    .values({
      assertion_id: `${provider.saml.idpEntityId}#${assertion.assertionId}`,
      expires_at: assertion.notOnOrAfter,
    })
    .onConflict((oc) => oc.doNothing())
    .returning('assertion_id')
    .executeTakeFirst();
  if (!spent) return refused('assertion_replayed', samlKey.replayed);
  const result = JSON.stringify({ person: person.person, issuer: provider.saml.idpEntityId });
  // The AuthnRequest is answered once. An IdP-initiated answer gets a row of its own: for it, the spent
  // assertion id above is the only replay guard.
  const claimed = assertion.inResponseTo
    ? await ctx.db
        .updateTable('identity_saml_requests')
        .set({ answered_at: now, result })
        .where('request_id', '=', assertion.inResponseTo)
        .where('flow_id', '=', flow.id)
        .where('answered_at', 'is', null)
        .returning('request_id')
        .executeTakeFirst()
    : await ctx.db
        .insertInto('identity_saml_requests')
        .values({
          request_id: `idp-initiated:${randomUUID()}`,
          flow_id: flow.id,
          provider: provider.provider,
          created_at: now,
          expires_at: new Date(now.getTime() + REQUEST_TTL_MS),
          result,
          answered_at: now,
          finished_at: null,
        })
        .returning('request_id')
        .executeTakeFirst();
  if (!claimed) return refused('saml_in_response_to', samlKey.in_response_to);
  return { ok: true, redirectTo: finishUrl(ctx.config, provider.provider, flow.id) };
}

export type FinishOutcome = { ok: true; identityId: string; provider: string } | Refusal;

/** Step 3: the same-site GET after the ACS (the engine has checked the flow's cookie). */
export async function finishSamlLogin(
  ctx: IdentityContext,
  flow: FlowRow,
  providerId: string,
): Promise<FinishOutcome> {
  const now = ctx.clock.now();
  const waiting = await ctx.db
    .selectFrom('identity_saml_requests')
    .select('request_id')
    .where('flow_id', '=', flow.id)
    .where('provider', '=', providerId)
    .where('answered_at', 'is not', null)
    .where('finished_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('answered_at', 'desc')
    .executeTakeFirst();
  // Single use: exactly one finish per answer gets past this update.
  const claimed = waiting
    ? await ctx.db
        .updateTable('identity_saml_requests')
        .set({ finished_at: now })
        .where('request_id', '=', waiting.request_id)
        .where('finished_at', 'is', null)
        .returning('result')
        .executeTakeFirst()
    : undefined;
  if (!claimed) return refused('saml_not_answered', samlKey.notFinished);
  const provider = await samlProvider(ctx, providerId);
  if ('ok' in provider) return provider;
  const stored = (typeof claimed.result === 'string' ? JSON.parse(claimed.result) : claimed.result) as {
    person: Person;
    issuer: string;
  };
  // The IdP's entity id changed between the ACS and here: the answer is not this provider's any more.
  if (stored.issuer !== provider.saml.idpEntityId) return refused('saml_issuer', samlKey.issuer);
  let resolved;
  try {
    resolved = await resolveIdentity(
      ctx,
      oidcServices(ctx).directory,
      {
        provider: provider.provider,
        organisationId: provider.organisationId,
        issuer: provider.saml.idpEntityId,
      },
      stored.person,
      now,
    );
  } catch {
    return refused('directory_unreachable', samlKey.unreachable);
  }
  if (!resolved.ok) {
    return refused(resolved.reason, refusalMessage(resolved, samlKey.status), resolved.identityId);
  }
  return { ok: true, identityId: resolved.identityId, provider: provider.provider };
}
