import { createHmac, randomBytes } from 'node:crypto';

// Standard Webhooks signatures: `webhook-signature: v1,<base64 HMAC-SHA256>` over
// `<webhook-id>.<webhook-timestamp>.<body>`, keyed by the base64 bytes after `whsec_`. During a
// rotation the old secret's signature is sent too, space-separated, so a receiver still holding the
// old secret keeps verifying.

const PREFIX = 'whsec_';

/** A new signing secret: `whsec_` and 32 random bytes in base64. */
export function newSigningSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

function sign(secret: string, content: string): string {
  const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(content).digest('base64')}`;
}

/** The three headers of one attempt, signed with each secret given (current first). */
export function webhookHeaders(
  secrets: readonly string[],
  eventId: string,
  at: Date,
  body: string,
): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const content = `${eventId}.${timestamp}.${body}`;
  return {
    'content-type': 'application/json',
    'webhook-id': eventId,
    'webhook-timestamp': timestamp,
    'webhook-signature': secrets.map((s) => sign(s, content)).join(' '),
  };
}
