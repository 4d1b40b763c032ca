import type { SystemUrls } from './browser.ts';

interface Message {
  to: string;
  subject: string;
  text: string;
  html: string;
  createdAt: string;
}

/** The newest message to `to` in the stand-ins' mailbox, waiting up to 15 s for one to arrive. */
export async function newestMail(urls: SystemUrls, to: string): Promise<Message> {
  const res = await fetch(`${urls.mail}/mail/api/messages?to=${encodeURIComponent(to)}&waitMs=15000`);
  if (!res.ok) throw new Error(`mailbox answered ${res.status}`);
  const messages = (await res.json()) as Message[];
  const newest = messages[0];
  if (!newest) throw new Error(`no mail to ${to}`);
  return newest;
}

/** The six-digit code in a message's text. */
export function codeIn(message: Message): string {
  const code = /\b(\d{6})\b/.exec(message.text)?.[1];
  if (!code) throw new Error(`no code in "${message.subject}"`);
  return code;
}
