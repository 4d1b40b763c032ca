import pino from 'pino';
import type { Logger } from 'pino';
import { createServiceLogger } from '@acme/service-kit/logging';

/** Redacted paths: anything that could carry a credential, even if someone logs it by mistake. */
const redact = [
  'password',
  '*.password',
  'headers.authorization',
  'headers.cookie',
  'req.headers.authorization',
  'req.headers.cookie',
  'consentChallenge',
  'logoutChallenge',
  'identitySessionId',
  'code',
  '*.code',
  'recovery_code',
  '*.recovery_code',
  'state',
  'headers["x-session-token"]',
  'req.headers["x-session-token"]',
];

export function createLogger(option: Logger | false | undefined, level: string, name: string): Logger {
  if (option) return option;
  if (option === false) return pino({ level: 'silent' });
  return createServiceLogger(name, level, { redact });
}
