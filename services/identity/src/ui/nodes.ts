import type { UiContainer, UiNode, UiText } from '@ory/client';
import { messages } from './messages.ts';

/** A node group: Kratos's (`default`, `password`, `totp`, `code`, `oidc`, …) or a new method's own. */
type Group = UiNode['group'] | (string & {});

interface InputOpts {
  group: Group;
  name: string;
  type: string;
  value?: unknown;
  required?: boolean;
  autocomplete?: string;
  /** Shown but not to be changed (Kratos's `disabled`). */
  disabled?: boolean;
  label?: UiText;
}

export function inputNode(o: InputOpts): UiNode {
  return {
    type: 'input',
    group: o.group as UiNode['group'],
    attributes: {
      name: o.name,
      type: o.type,
      ...(o.value !== undefined ? { value: o.value } : {}),
      ...(o.required ? { required: true } : {}),
      ...(o.autocomplete ? { autocomplete: o.autocomplete } : {}),
      disabled: o.disabled === true,
      node_type: 'input',
    } as UiNode['attributes'],
    messages: [],
    meta: o.label ? { label: o.label } : {},
  };
}

/** The CSRF node; its value is filled at render time from the request's CSRF cookie. */
export const csrfNode = (value = ''): UiNode =>
  inputNode({ group: 'default', name: 'csrf_token', type: 'hidden', value, required: true });

/** Password login: the identifier (hidden on a refresh), the password and its submit button. */
export function passwordLoginNodes(opts: { identifier: string; refresh: boolean }): UiNode[] {
  return [
    inputNode({
      group: 'default',
      name: 'identifier',
      type: opts.refresh ? 'hidden' : 'text',
      value: opts.identifier,
      required: true,
      label: messages.labelId(),
    }),
    passwordNode('current-password'),
    inputNode({
      group: 'password',
      name: 'method',
      type: 'submit',
      value: 'password',
      label: opts.refresh ? messages.loginSignIn() : messages.loginWithPassword(),
    }),
  ];
}

/** Registration with a password (Kratos's traits form): address, first and last name, password, submit. */
export function passwordRegistrationNodes(): UiNode[] {
  // Kratos's autocomplete values are a closed list (no given-name / family-name).
  const trait = (name: string, type: string, label: UiText, autocomplete?: string) =>
    inputNode({
      group: 'password',
      name,
      type,
      required: true,
      label,
      ...(autocomplete ? { autocomplete } : {}),
    });
  return [
    trait('traits.email', 'email', messages.labelEmail(), 'email'),
    trait('traits.name.first', 'text', messages.labelTrait('First name')),
    trait('traits.name.last', 'text', messages.labelTrait('Last name')),
    passwordNode('new-password'),
    inputNode({
      group: 'password',
      name: 'method',
      type: 'submit',
      value: 'password',
      label: messages.registrationSignUp(),
    }),
  ];
}

/** The password input (login: `current-password`; settings: `new-password`). */
export const passwordNode = (autocomplete: 'current-password' | 'new-password'): UiNode =>
  inputNode({
    group: 'password',
    name: 'password',
    type: 'password',
    required: true,
    autocomplete,
    label: messages.labelPassword(),
  });

export function textNode(group: Group, id: string, text: UiText, label?: UiText): UiNode {
  return {
    type: 'text',
    group: group as UiNode['group'],
    attributes: { id, text, node_type: 'text' } as UiNode['attributes'],
    messages: [],
    meta: label ? { label } : {},
  };
}

export function imgNode(group: Group, id: string, src: string, label: UiText): UiNode {
  return {
    type: 'img',
    group: group as UiNode['group'],
    attributes: { id, src, width: 256, height: 256, node_type: 'img' } as UiNode['attributes'],
    messages: [],
    meta: { label },
  };
}

/** The six-digit authenticator code input (login and linking in settings). */
export function totpCodeNode(label: UiText): UiNode {
  return inputNode({
    group: 'totp',
    name: 'totp_code',
    type: 'text',
    required: true,
    autocomplete: 'one-time-code',
    label,
  });
}

export function totpLoginNodes(): UiNode[] {
  return [
    totpCodeNode(messages.authCode()),
    inputNode({
      group: 'totp',
      name: 'method',
      type: 'submit',
      value: 'totp',
      label: messages.useAuthenticator(),
    }),
  ];
}

export function anchorNode(group: Group, id: string, href: string, title: UiText): UiNode {
  return {
    type: 'a',
    group: group as UiNode['group'],
    attributes: { id, href, title, node_type: 'a' } as UiNode['attributes'],
    messages: [],
    meta: { label: title },
  };
}

/** Code flows (recovery/verification): ask for the email address. */
export function emailCodeNodes(withCsrf: boolean): UiNode[] {
  return [
    ...(withCsrf ? [csrfNode()] : []),
    inputNode({
      group: 'code',
      name: 'email',
      type: 'email',
      required: true,
      autocomplete: 'email',
      label: messages.labelEmail(),
    }),
    inputNode({ group: 'code', name: 'method', type: 'submit', value: 'code', label: messages.continue() }),
  ];
}

/** Code flows after the code was sent: the code input, the method, and a resend button. */
export function enterCodeNodes(opts: { withCsrf: boolean; email?: string; label: UiText }): UiNode[] {
  const code = inputNode({
    group: 'code',
    name: 'code',
    type: 'text',
    required: true,
    autocomplete: 'one-time-code',
    label: opts.label,
  });
  Object.assign(code.attributes, { pattern: '[0-9]+', maxlength: 6 });
  return [
    ...(opts.withCsrf ? [csrfNode()] : []),
    code,
    inputNode({ group: 'code', name: 'method', type: 'hidden', value: 'code' }),
    inputNode({ group: 'code', name: 'method', type: 'submit', value: 'code', label: messages.continue() }),
    ...(opts.email !== undefined
      ? [
          inputNode({
            group: 'code',
            name: 'email',
            type: 'submit',
            value: opts.email,
            label: messages.resendCode(),
          }),
        ]
      : []),
  ];
}

export interface FieldMessage {
  /** JSON pointer like `#/password`; `#/` (or an unknown field) means the whole form. */
  pointer: string;
  message: UiText;
}

/**
 * Kratos message placement (`ui/container/container.go`): a message whose pointer names a
 * node goes into that node's messages, everything else into `ui.messages`.
 */
export function placeMessages(ui: UiContainer, list: FieldMessage[]): UiContainer {
  const nodes = ui.nodes.map((n) => ({ ...n, messages: [...n.messages] }));
  const top = [...(ui.messages ?? [])];
  for (const { pointer, message } of list) {
    const name = pointer.replace(/^#\/?/, '').replace(/\//g, '.');
    const node = name ? nodes.find((n) => nodeName(n) === name) : undefined;
    if (node) node.messages.push(message);
    else top.push(message);
  }
  return { ...ui, nodes, messages: top };
}

/** Drops old messages (Kratos resets them before a new submit is judged). */
export function clearMessages(ui: UiContainer): UiContainer {
  return { ...ui, messages: [], nodes: ui.nodes.map((n) => ({ ...n, messages: [] })) };
}

function nodeName(n: UiNode): string | undefined {
  const a = n.attributes as { name?: string };
  return a.name;
}

export function setNodeValue(ui: UiContainer, name: string, value: unknown): UiContainer {
  return {
    ...ui,
    nodes: ui.nodes.map((n) =>
      nodeName(n) === name && n.attributes.node_type === 'input'
        ? ({ ...n, attributes: { ...n.attributes, value } } as UiNode)
        : n,
    ),
  };
}
