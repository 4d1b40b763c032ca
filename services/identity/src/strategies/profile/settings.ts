import type { UiNode } from '@ory/client';
import type { FlowRow } from '../../db/schema.ts';
import type { Db } from '../../db/db.ts';
import { settingsRefreshUrl } from '../../flows/kinds/settings.ts';
import type { Outcome } from '../../flows/outcome.ts';
import type { Strategy, StrategyContext } from '../../flows/strategy.ts';
import { sessionErrors } from '../../errors/identity-error.ts';
import { queueSecurityNotice } from '../../identities/notices.ts';
import { identityEmail, normalizeEmail, ssoSubject } from '../../identities/repo.ts';
import { ssoRefusalFor } from '../oidc/enforcement.ts';
import { prepareSsoManaged, ssoManaged } from '../oidc/sso-managed.ts';
import { TraitsSchema } from '@acme/identity-contract/traits';
import { updateIdentity } from '../../identities/service.ts';
import { isPrivileged } from '../../sessions/policy.ts';
import { messages } from '../../ui/messages.ts';
import { inputNode } from '../../ui/nodes.ts';
import { traitIssueMessage } from './trait-issues.ts';

const BOOLEAN_TRAITS = new Set([
  'onboarding.isGitUser',
  'onboarding.gitProviderConnected',
  'onboarding.tosAccepted',
]);

/** JSON bodies carry `traits` as an object; form posts carry `traits.a.b` keys (strings). */
function traitsFromBody(body: Record<string, unknown>): unknown {
  if (body.traits !== undefined) return body.traits;
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(body)) {
    if (!key.startsWith('traits.')) continue;
    const path = key.slice('traits.'.length);
    const parts = path.split('.');
    if (parts.some((p) => !p || p === '__proto__' || p === 'constructor' || p === 'prototype')) continue;
    let value: unknown = raw;
    if (BOOLEAN_TRAITS.has(path)) value = raw === 'true' || raw === 'on';
    if (path === 'onboarding.mfaSetupDeadline' && raw === '') value = null;
    // An empty language field (a person who chose none) leaves the language unset.
    if (path === 'locale' && raw === '') continue;
    let target = out;
    for (const p of parts.slice(0, -1)) target = (target[p] ??= {}) as Record<string, unknown>;
    target[parts[parts.length - 1]!] = value;
  }
  return Object.keys(out).length ? out : undefined;
}

const TRAIT_FIELDS: { name: string; type: string; path: string[] }[] = [
  { name: 'traits.email', type: 'email', path: ['email'] },
  { name: 'traits.userServiceID', type: 'text', path: ['userServiceID'] },
  { name: 'traits.name.first', type: 'text', path: ['name', 'first'] },
  { name: 'traits.name.last', type: 'text', path: ['name', 'last'] },
  { name: 'traits.onboarding.isGitUser', type: 'checkbox', path: ['onboarding', 'isGitUser'] },
  { name: 'traits.onboarding.mfaSetupDeadline', type: 'text', path: ['onboarding', 'mfaSetupDeadline'] },
  {
    name: 'traits.onboarding.gitProviderConnected',
    type: 'checkbox',
    path: ['onboarding', 'gitProviderConnected'],
  },
  { name: 'traits.onboarding.tosAccepted', type: 'checkbox', path: ['onboarding', 'tosAccepted'] },
  { name: 'traits.locale', type: 'text', path: ['locale'] },
];

/**
 * Profile: full traits. Changing the email (identifier and addresses) needs a privileged session; for
 * a member of an organisation that enforces SSO the address is shown but disabled (it can not change).
 */
export const profileSettings: Strategy = {
  method: 'profile',
  group: 'profile',
  prepare: prepareSsoManaged,
  nodes(flow, { identity }) {
    const traits = identity?.row.traits;
    const addressFixed = ssoManaged(flow);
    const nodes: UiNode[] = TRAIT_FIELDS.map((f) => {
      const value = valueAt(traits, f.path);
      return inputNode({
        group: 'profile',
        name: f.name,
        type: f.type,
        ...(value !== undefined ? { value } : {}),
        ...(f.name === 'traits.email'
          ? { required: true, autocomplete: 'email', disabled: addressFixed }
          : {}),
      });
    });
    nodes.push(
      inputNode({
        group: 'profile',
        name: 'method',
        type: 'submit',
        value: 'profile',
        label: messages.save(),
      }),
    );
    return nodes;
  },
  submit: (flow, input, ctx) => submitProfile(flow, input, ctx),
};

async function submitProfile(
  flow: FlowRow,
  body: Record<string, unknown>,
  ctx: StrategyContext,
): Promise<Outcome> {
  const { service } = ctx;
  const session = ctx.session!;
  const identity = session.identity;
  const traits = traitsFromBody(body);
  if (traits === undefined)
    return {
      type: 'flow_updated',
      messages: [{ pointer: '#/traits', message: messages.required('traits') }],
    };
  const parsed = TraitsSchema.safeParse(traits);
  if (!parsed.success) {
    return {
      type: 'flow_updated',
      messages: parsed.error.issues.map((i) => ({
        pointer: `#/traits/${i.path.join('/')}`,
        message: traitIssueMessage(i, traits),
      })),
    };
  }
  const locked = changedAdminTraits(identity.row.traits, parsed.data);
  if (locked.length > 0) {
    return {
      type: 'flow_updated',
      messages: locked.map((path) => ({
        pointer: `#/traits/${path.join('/')}`,
        message: messages.managedTrait(path.join('.')),
      })),
    };
  }
  const current = identityEmail(identity);
  const addressChanges = normalizeEmail(parsed.data.email) !== normalizeEmail(current);
  if (addressChanges && !isPrivileged(service, session)) {
    return { type: 'error', error: sessionErrors.refreshRequired(settingsRefreshUrl(service, flow)) };
  }
  // A member of an organisation that enforces SSO keeps the address the organisation's provider
  // vouched for: changed, it would no longer name the organisation (issue 31, item 4). Its
  // break-glass admin may change it.
  if (addressChanges) {
    const sso = await ssoRefusalFor(service, ssoSubject(identity));
    if (sso) return { type: 'flow_updated', messages: [{ pointer: '#/traits/email', message: sso }] };
  }
  // The old address hears of the change (if someone else made it, the owner still learns of it),
  // queued in the update's transaction: no change without its notice, no notice without the change.
  const emailChanged = !!current && addressChanges;
  const notice = (trx: Db) =>
    queueSecurityNotice(
      service,
      {
        to: current,
        kind: 'email_changed',
        at: service.clock.now(),
        newEmail: parsed.data.email,
        identityId: identity.row.id,
      },
      trx,
    );
  await updateIdentity(
    service.db,
    service.clock,
    identity.row.id,
    { schema_id: 'default', traits: withAdminTraits(parsed.data, identity.row.traits) },
    undefined,
    emailChanged ? notice : undefined,
  );
  return { type: 'success' };
}

/**
 * Traits the user service manages (who the user is, and where onboarding stands: the terms, the
 * source-code-host link, the second-factor grace period). Self-service may send them back
 * unchanged (the app posts full traits) but never change them: otherwise anyone could accept the
 * terms or extend their own grace period without the user service.
 */
const ADMIN_TRAITS: string[][] = [
  ['userServiceID'],
  ['onboarding', 'isGitUser'],
  ['onboarding', 'mfaSetupDeadline'],
  ['onboarding', 'gitProviderConnected'],
  ['onboarding', 'tosAccepted'],
];

function valueAt(obj: unknown, path: string[]): unknown {
  let v: unknown = obj;
  for (const p of path) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[p] : undefined;
  return v;
}

/** The admin-managed trait paths that `submitted` sets to something other than `current`. */
function changedAdminTraits(current: unknown, submitted: unknown): string[][] {
  // Absent booleans read as false and an absent deadline as null, as the profile form shows them.
  const normal = (path: string[], value: unknown) =>
    BOOLEAN_TRAITS.has(path.join('.')) ? value === true : value === undefined ? null : value;
  return ADMIN_TRAITS.filter((path) => {
    const next = valueAt(submitted, path);
    return next !== undefined && normal(path, next) !== normal(path, valueAt(current, path));
  });
}

/** `submitted` with every admin-managed trait taken from `current`. */
function withAdminTraits<T extends object>(submitted: T, current: unknown): T {
  const out = structuredClone(submitted) as Record<string, unknown>;
  for (const path of ADMIN_TRAITS) {
    const value = valueAt(current, path);
    let target = out;
    for (const p of path.slice(0, -1)) target = (target[p] ??= {}) as Record<string, unknown>;
    if (value === undefined) delete target[path[path.length - 1]!];
    else target[path[path.length - 1]!] = value;
  }
  const onboarding = out.onboarding as Record<string, unknown> | undefined;
  if (onboarding && Object.keys(onboarding).length === 0) delete out.onboarding;
  return out as T;
}
