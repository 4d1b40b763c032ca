import type { UiContainer, UiNode, UiText } from '@ory/client';
import type { IdentityContext } from '../../context.ts';
import type { FlowRow } from '../../db/schema.ts';
import type { Outcome } from '../../flows/outcome.ts';
import { newChallenge } from './ceremony.ts';
import { inputNode } from '../../ui/nodes.ts';
import type { WebAuthnType } from './keys.ts';

/**
 * The form field names of each WebAuthn method: Kratos's where Kratos has one (`passkey_settings_register`,
 * `passkey_create_data`, `passkey_register_trigger`, `passkey_remove`, `passkey_login`,
 * `passkey_challenge`, `passkey_login_trigger`; `webauthn_register`, `webauthn_register_displayname`,
 * `webauthn_register_trigger`, `webauthn_remove`, `webauthn_login`, `webauthn_login_trigger`), and ours
 * in the same pattern for what Kratos does not have (renaming; the options of a security key in a
 * hidden input as well as in the trigger's `onclick`). docs/architecture.md lists them.
 */
export interface Fields {
  register: string;
  createData: string;
  registerTrigger: string;
  displayName: string;
  remove: string;
  rename: string;
  login: string;
  challenge: string;
  loginTrigger: string;
}

export const FIELDS: Record<WebAuthnType, Fields> = {
  passkey: {
    register: 'passkey_settings_register',
    createData: 'passkey_create_data',
    registerTrigger: 'passkey_register_trigger',
    displayName: 'passkey_display_name',
    remove: 'passkey_remove',
    rename: 'passkey_rename',
    login: 'passkey_login',
    challenge: 'passkey_challenge',
    loginTrigger: 'passkey_login_trigger',
  },
  webauthn: {
    register: 'webauthn_register',
    createData: 'webauthn_create_data',
    registerTrigger: 'webauthn_register_trigger',
    displayName: 'webauthn_register_displayname',
    remove: 'webauthn_remove',
    rename: 'webauthn_rename',
    login: 'webauthn_login',
    challenge: 'webauthn_challenge',
    loginTrigger: 'webauthn_login_trigger',
  },
};

/** The script the trigger buttons call (`GET /.well-known/ory/webauthn.js`), as Kratos adds it. */
export function scriptNode(service: Pick<IdentityContext, 'config'>, type: WebAuthnType): UiNode {
  return {
    type: 'script',
    group: type,
    attributes: {
      id: 'webauthn_script',
      src: `${service.config.publicUrl}/.well-known/ory/webauthn.js`,
      async: true,
      referrerpolicy: 'no-referrer',
      crossorigin: 'anonymous',
      integrity: '',
      type: 'text/javascript',
      nonce: '',
      node_type: 'script',
    } as UiNode['attributes'],
    messages: [],
    meta: {},
  };
}

/** A hidden input holding JSON (the options for the browser, or the browser's answer). */
export const hiddenNode = (type: WebAuthnType, name: string, value = '') =>
  inputNode({ group: type, name, type: 'hidden', value });

/** A button that runs `window.<fn>(<options>)` from the script (Kratos's trigger nodes). */
export function triggerNode(
  type: WebAuthnType,
  name: string,
  call: string,
  label: Parameters<typeof inputNode>[0]['label'],
): UiNode {
  const node = inputNode({ group: type, name, type: 'button', value: '', label });
  Object.assign(node.attributes, { onclick: call, onclickTrigger: call.replace(/^window\.(\w+).*$/s, '$1') });
  return node;
}

/**
 * A failed answer: the form again, with a new challenge (the old one is spent) and `message`. The
 * method's nodes are redrawn from `draw` with the new challenge in the flow's state.
 */
export async function answerAgain(
  flow: FlowRow,
  p: { type: WebAuthnType; now: Date; message: UiText; pointer?: string },
  draw: (draft: FlowRow) => Promise<UiNode[]>,
): Promise<Outcome> {
  const internal = { ...flow.internal, ...newChallenge(p.type, p.now) };
  const ui = flow.ui as UiContainer;
  const redrawn = await draw({ ...flow, internal });
  return {
    type: 'flow_updated',
    messages: [{ pointer: p.pointer ?? '#/', message: p.message }],
    patch: { internal, ui: { ...ui, nodes: [...ui.nodes.filter((n) => n.group !== p.type), ...redrawn] } },
  };
}
