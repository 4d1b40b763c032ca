import type { FastifyRequest } from 'fastify';
import type { SettingsFlow, UiContainer, UiNode } from '@ory/client';
import type { Ctx } from '../../context.ts';
import type { FlowRow } from '../../db/schema.ts';
import { csrfHash } from '../../http/csrf.ts';
import { toApiIdentity, type LoadedIdentity } from '../../identities/repo.ts';
import { hasSecondFactor } from '../../sessions/policy.ts';
import { newTotpSecret, totpQrDataUrl, totpUri } from '../../strategies/totp/totp.ts';
import { messages } from '../../ui/messages.ts';
import { csrfNode, imgNode, inputNode, textNode, totpCodeNode } from '../../ui/nodes.ts';
import { baseFlow } from '../render.ts';
import { insertFlow } from '../flow-store.ts';

export const settingsAction = (ctx: Ctx, id: string) =>
  `${ctx.config.publicUrl}/self-service/settings?flow=${id}`;

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
];

function at(obj: unknown, path: string[]): unknown {
  let v: unknown = obj;
  for (const p of path) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[p] : undefined;
  return v;
}

/** Settings nodes: profile (traits), password, and TOTP setup (secret held by the flow) or unlink. */
export async function settingsNodes(
  ctx: Ctx,
  identity: LoadedIdentity,
  totpSecret: string,
): Promise<UiNode[]> {
  const traits = identity.row.traits;
  const nodes: UiNode[] = [csrfNode()];
  for (const f of TRAIT_FIELDS) {
    const value = at(traits, f.path);
    nodes.push(
      inputNode({
        group: 'profile',
        name: f.name,
        type: f.type,
        ...(value !== undefined ? { value } : {}),
        ...(f.name === 'traits.email' ? { required: true, autocomplete: 'email' } : {}),
      }),
    );
  }
  nodes.push(
    inputNode({ group: 'profile', name: 'method', type: 'submit', value: 'profile', label: messages.save() }),
  );
  nodes.push(
    inputNode({
      group: 'password',
      name: 'password',
      type: 'password',
      required: true,
      autocomplete: 'new-password',
      label: messages.labelPassword(),
    }),
  );
  nodes.push(
    inputNode({
      group: 'password',
      name: 'method',
      type: 'submit',
      value: 'password',
      label: messages.save(),
    }),
  );
  if (hasSecondFactor(identity)) {
    nodes.push(
      inputNode({
        group: 'totp',
        name: 'totp_unlink',
        type: 'submit',
        value: true,
        label: messages.unlinkTotp(),
      }),
    );
  } else {
    const email = String((traits as { email?: unknown }).email ?? '');
    nodes.push(
      imgNode(
        'totp',
        'totp_qr',
        await totpQrDataUrl(totpUri(totpSecret, ctx.config.totpIssuer, email)),
        messages.totpQr(),
      ),
    );
    nodes.push(
      textNode('totp', 'totp_secret_key', messages.totpSecret(totpSecret), messages.totpSecretLabel()),
    );
    nodes.push(totpCodeNode(messages.verifyCode()));
    nodes.push(
      inputNode({ group: 'totp', name: 'method', type: 'submit', value: 'totp', label: messages.save() }),
    );
  }
  return nodes;
}

export async function createSettingsFlow(
  ctx: Ctx,
  p: {
    identity: LoadedIdentity;
    returnTo: string | null;
    requestUrl: string;
    csrfToken: string;
    messages?: UiContainer['messages'];
  },
): Promise<FlowRow> {
  const totpSecret = newTotpSecret();
  const nodes = await settingsNodes(ctx, p.identity, totpSecret);
  return insertFlow(ctx.db, {
    kind: 'settings',
    type: 'browser',
    state: 'show_form',
    csrfHash: csrfHash(p.csrfToken),
    requestUrl: p.requestUrl,
    returnTo: p.returnTo,
    identityId: p.identity.row.id,
    ui: (id) => ({
      action: settingsAction(ctx, id),
      method: 'POST',
      nodes,
      ...(p.messages?.length ? { messages: p.messages } : {}),
    }),
    internal: { totp_secret: totpSecret, totp_failures: 0 },
    now: ctx.clock.now(),
    lifespanMs: ctx.config.flowLifespanMs,
  });
}

export function renderSettingsFlow(
  ctx: Ctx,
  req: FastifyRequest,
  flow: FlowRow,
  identity: LoadedIdentity,
  opts: { csrfToken?: string; continueWith?: unknown[] } = {},
): SettingsFlow {
  return {
    ...baseFlow(ctx, req, flow, opts.csrfToken),
    identity: toApiIdentity(identity, ctx.config.publicUrl, false),
    ...(opts.continueWith ? { continue_with: opts.continueWith } : {}),
  } as SettingsFlow;
}
