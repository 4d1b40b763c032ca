import { describe, expect, it } from 'vitest';
import type { UiNode } from '../../shared/identity-client/types.ts';
import { selectNewBackupCodes, selectTwoFactor } from './select-two-factor.ts';

const input = (name: string) => ({ type: 'input', group: 'x', attributes: { name }, messages: [], meta: {} });
const text = (id: string, t: object) => ({
  type: 'text',
  group: 'lookup_secret',
  attributes: { id, text: t },
  messages: [],
  meta: {},
});
const flow = (...nodes: object[]) => ({ ui: { action: '', method: 'POST', nodes: nodes as UiNode[] } });

describe('selectTwoFactor', () => {
  it.each([
    ['no flow yet', null, { totp: 'off', backupCodesLeft: null, canMakeBackupCodes: false }],
    ['TOTP not set up (a setup form)', flow(input('totp_code')), { totp: 'off', canMakeBackupCodes: false }],
    [
      'TOTP on, no backup codes',
      flow(input('totp_unlink'), input('lookup_secret_regenerate')),
      { totp: 'on', backupCodesLeft: null, canMakeBackupCodes: true },
    ],
    [
      'TOTP on, 7 backup codes left',
      flow(
        input('totp_unlink'),
        text('lookup_secret_remaining', {
          id: 1050022,
          text: '7 of 12',
          context: { remaining: 7, total: 12 },
        }),
        input('lookup_secret_regenerate'),
      ),
      { totp: 'on', backupCodesLeft: 7, canMakeBackupCodes: true },
    ],
  ])('%s', (_name, f, expected) => {
    expect(selectTwoFactor(f)).toMatchObject(expected);
  });
});

describe('selectNewBackupCodes', () => {
  it('reads the codes of a "make new codes" answer, and nothing from a form without them', () => {
    const secrets = ['ab12cd34', 'ef56gh78'].map((t) => ({ id: 1050009, text: t, type: 'info' }));
    expect(
      selectNewBackupCodes(
        flow(text('lookup_secret_codes', { id: 1050015, text: '', context: { secrets } })),
      ),
    ).toEqual(['ab12cd34', 'ef56gh78']);
    expect(selectNewBackupCodes(flow(input('lookup_secret_regenerate')))).toEqual([]);
  });
});
