import type { UiContainer, UiNode, UiText } from './types.ts';

// Reading flow nodes: csrf, values, messages, and the TOTP QR and secret (no generic renderer).

interface FlowLike {
  ui: UiContainer;
}

function inputName(node: UiNode): string | undefined {
  const attrs = node.attributes as { node_type?: string; name?: string };
  return attrs.node_type === 'input' ? attrs.name : undefined;
}

export function findInput(flow: FlowLike, name: string): UiNode | undefined {
  return flow.ui.nodes.find((n) => inputName(n) === name);
}

export function inputValue(flow: FlowLike, name: string): string | undefined {
  const node = findInput(flow, name);
  const value = (node?.attributes as { value?: unknown } | undefined)?.value;
  return typeof value === 'string' ? value : undefined;
}

export function csrfToken(flow: FlowLike): string {
  return inputValue(flow, 'csrf_token') ?? '';
}

function flowMessages(flow: FlowLike): UiText[] {
  return flow.ui.messages ?? [];
}

export function nodeMessages(flow: FlowLike, name: string): UiText[] {
  return findInput(flow, name)?.messages ?? [];
}

export function errorMessages(flow: FlowLike): UiText[] {
  const all = [...flowMessages(flow), ...flow.ui.nodes.flatMap((n) => n.messages ?? [])];
  return all.filter((m) => m.type === 'error');
}

/** The texts of the error messages among `messages`. */
export function errorTexts(messages: UiText[]): string[] {
  return messages.filter((m) => m.type === 'error').map((m) => m.text);
}

export function hasMessage(flow: FlowLike, id: number): boolean {
  return flowMessages(flow).some((m) => m.id === id);
}

export function totpQr(flow: FlowLike): string | undefined {
  const node = flow.ui.nodes.find((n) => (n.attributes as { id?: string }).id === 'totp_qr');
  const src = (node?.attributes as { src?: unknown } | undefined)?.src;
  return typeof src === 'string' ? src : undefined;
}

export function totpSecret(flow: FlowLike): string | undefined {
  const node = flow.ui.nodes.find((n) => (n.attributes as { id?: string }).id === 'totp_secret_key');
  const text = (node?.attributes as { text?: { text?: unknown } } | undefined)?.text?.text;
  return typeof text === 'string' ? text : undefined;
}
