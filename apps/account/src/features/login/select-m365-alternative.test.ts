import { describe, expect, it } from 'vitest';
import { defaultUrlMap } from '../../shared/config/applications.ts';
import type { M365Alternative } from './select-m365-alternative.ts';
import { selectM365Alternative } from './select-m365-alternative.ts';

const base = {
  application: 'platform' as const,
  urlMap: defaultUrlMap(),
  supportEmail: 'support@acme.test',
  deviceLoginChallenge: null,
};

describe('selectM365Alternative', () => {
  it.each<[string, Partial<Parameters<typeof selectM365Alternative>[0]>, M365Alternative]>([
    [
      'the organisation has MAGIC → MAGIC’s m365 login',
      { hasMagic: true },
      { type: 'magic', url: 'http://localhost:4001/account/m365-login', device: false },
    ],
    [
      'a device sign-in’s login → MAGIC’s device page with the same login request (the code stays accepted)',
      { hasMagic: true, deviceLoginChallenge: 'l 1' },
      { type: 'magic', url: 'http://localhost:4001/account/device?login_challenge=l+1', device: true },
    ],
    [
      'a device sign-in without MAGIC → the support contact',
      { hasMagic: false, deviceLoginChallenge: 'l1' },
      { type: 'support', email: 'support@acme.test' },
    ],
    ['no MAGIC → the support contact', { hasMagic: false }, { type: 'support', email: 'support@acme.test' }],
    [
      'on AI, with MAGIC → MAGIC’s m365 login',
      { application: 'ai', hasMagic: true },
      { type: 'magic', url: 'http://localhost:4001/account/m365-login', device: false },
    ],
    [
      'MAGIC itself without its m365 set-up → the support contact (never a link to this same page)',
      { application: 'magic', hasMagic: true },
      { type: 'support', email: 'support@acme.test' },
    ],
  ])('%s', (_label, input, expected) => {
    expect(selectM365Alternative({ ...base, hasMagic: false, ...input })).toEqual(expected);
  });
});
