import { describe, expect, it } from 'vitest';
import type { EmailContinue, EmailContinueInput } from './decide-email-continue.ts';
import { decideEmailContinue } from './decide-email-continue.ts';

const NOW = 1_000_000;
const kept = { email: 'ada@acme.test', expiresAt: NOW + 60_000 };

const base: EmailContinueInput = { pending: kept, now: NOW, hasEmailResult: false, pageMayLeave: false };

const cases: [string, Partial<EmailContinueInput>, EmailContinue][] = [
  ['nothing continued: nothing to do', { pending: null }, { type: 'none' }],
  ['nothing continued, whatever the page does', { pending: null, pageMayLeave: true }, { type: 'none' }],
  ['the page stays: the kept address is looked up', {}, { type: 'submit', email: 'ada@acme.test' }],
  [
    'the page may still leave (challenge being checked, authorization starting): the address waits',
    { pageMayLeave: true },
    { type: 'wait' },
  ],
  [
    'back from the authorization server with the address kept, the page staying: looked up, no second click',
    { pending: { email: 'ada@acme.test', expiresAt: NOW + 1 } },
    { type: 'submit', email: 'ada@acme.test' },
  ],
  [
    'kept longer than a login challenge lives: dropped',
    { pending: { ...kept, expiresAt: NOW } },
    { type: 'drop' },
  ],
  ['the Email step has its result already: dropped', { hasEmailResult: true }, { type: 'drop' }],
  [
    'the Email step has its result already, even while the page may leave: dropped',
    { hasEmailResult: true, pageMayLeave: true },
    { type: 'drop' },
  ],
];

describe('decideEmailContinue', () => {
  it.each(cases)('%s', (_name, patch, expected) => {
    expect(decideEmailContinue({ ...base, ...patch })).toEqual(expected);
  });
});
