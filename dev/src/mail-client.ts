import type { CaughtMessage } from './mailbox.ts';

export interface WaitForMessageOptions {
  /** Give up after this long (20 s). */
  timeoutMs?: number;
  /** Only messages received at or after this time. */
  since?: Date | string;
  /** Only messages whose subject contains this text or matches this pattern. */
  subject?: string | RegExp;
}

/** The newest message to `to` that matches, waiting for it with the API's long poll. */
export async function waitForMessage(
  mailApiUrl: string,
  to: string,
  options: WaitForMessageOptions = {},
): Promise<CaughtMessage> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  const since = options.since === undefined ? undefined : new Date(options.since).getTime();
  const { subject } = options;
  const matches = (m: CaughtMessage) =>
    (since === undefined || new Date(m.createdAt).getTime() >= since) &&
    (subject === undefined ||
      (typeof subject === 'string' ? m.subject.includes(subject) : subject.test(m.subject)));
  let first = true;
  for (;;) {
    const left = deadline - Date.now();
    const url = new URL(mailApiUrl);
    url.searchParams.set('to', to);
    // The long poll returns as soon as any message to `to` exists; once one does, poll briefly.
    if (left > 0) url.searchParams.set('waitMs', String(first ? Math.min(left, 5_000) : 0));
    const res = await fetch(url);
    if (!res.ok) throw new Error(`mailbox API answered ${res.status}`);
    const found = ((await res.json()) as CaughtMessage[]).find(matches);
    if (found) return found;
    if (Date.now() >= deadline) throw new Error(`no matching message to ${to} within the time limit`);
    first = false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The first six-digit code in a message's text (recovery, verification, invitation codes). */
export function extractCode(message: Pick<CaughtMessage, 'text'>): string {
  const match = /\b(\d{6})\b/.exec(message.text);
  if (!match?.[1]) throw new Error('no six-digit code in the message');
  return match[1];
}
