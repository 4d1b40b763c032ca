import type { Ctx } from '../../context.ts';
import { sessionErrors } from '../../errors/identity-error.ts';
import { identityEmail, normalizeEmail, type LoadedIdentity } from '../../identities/repo.ts';
import { TraitsSchema } from '../../identities/schema.ts';
import { updateIdentity } from '../../identities/service.ts';
import type { ActiveSession } from '../../sessions/repo.ts';
import { isPrivileged } from '../../sessions/policy.ts';
import { messages } from '../../ui/messages.ts';
import type { FieldMessage } from '../../ui/nodes.ts';

const BOOLEAN_TRAITS = new Set([
  'onboarding.isGitUser',
  'onboarding.gitProviderConnected',
  'onboarding.tosAccepted',
]);

/** JSON bodies carry `traits` as an object; form posts carry `traits.a.b` keys (strings). */
export function traitsFromBody(body: Record<string, unknown>): unknown {
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
    let target = out;
    for (const p of parts.slice(0, -1)) target = (target[p] ??= {}) as Record<string, unknown>;
    target[parts[parts.length - 1]!] = value;
  }
  return Object.keys(out).length ? out : undefined;
}

export type SettingsOutcome = { ok: true } | { ok: false; messages: FieldMessage[] };

/** Profile: full traits. Changing the email (identifier and addresses) needs a privileged session. */
export async function submitProfile(
  ctx: Ctx,
  session: ActiveSession,
  identity: LoadedIdentity,
  body: Record<string, unknown>,
  refreshUrl: string,
): Promise<SettingsOutcome> {
  const traits = traitsFromBody(body);
  if (traits === undefined)
    return { ok: false, messages: [{ pointer: '#/traits', message: messages.required('traits') }] };
  const parsed = TraitsSchema.safeParse(traits);
  if (!parsed.success) {
    return {
      ok: false,
      messages: parsed.error.issues.map((i) => ({
        pointer: `#/traits/${i.path.join('/')}`,
        message: messages.generic(`${i.path.join('.') || 'traits'}: ${i.message}`),
      })),
    };
  }
  const current = identityEmail(identity);
  if (normalizeEmail(parsed.data.email) !== normalizeEmail(current) && !isPrivileged(ctx, session)) {
    throw sessionErrors.refreshRequired(refreshUrl);
  }
  await updateIdentity(ctx.db, ctx.clock, identity.row.id, { schema_id: 'default', traits: parsed.data });
  return { ok: true };
}
