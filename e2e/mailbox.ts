import type { SystemUrls } from './browser.ts';

export interface Message {
  to: string;
  subject: string;
  text: string;
  html: string;
  createdAt: string;
}

/**
 * The newest message to `to` in the stand-ins' mailbox, waiting up to 15 s for one to arrive
 * (one newer than `after`, when given; one whose subject matches `subject`, when given, since a
 * security notice about an earlier change may arrive in between).
 */
export async function newestMail(
  urls: SystemUrls,
  to: string,
  after?: Message,
  subject?: RegExp,
): Promise<Message> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const res = await fetch(`${urls.mail}/mail/api/messages?to=${encodeURIComponent(to)}&waitMs=15000`);
    if (!res.ok) throw new Error(`mailbox answered ${res.status}`);
    const newest = ((await res.json()) as Message[]).filter((m) => !subject || subject.test(m.subject))[0];
    if (newest && (!after || newest.createdAt > after.createdAt)) return newest;
    if (Date.now() > deadline)
      throw new Error(`no ${after ? 'new ' : ''}mail${subject ? ` matching ${subject}` : ''} to ${to}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The six-digit code in a message's text. */
export function codeIn(message: Message): string {
  const code = /\b(\d{6})\b/.exec(message.text)?.[1];
  if (!code) throw new Error(`no code in "${message.subject}"`);
  return code;
}
