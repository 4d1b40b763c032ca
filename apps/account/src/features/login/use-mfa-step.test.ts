import { describe, expect, it } from 'vitest';
import type { LoginFlow } from '../../shared/identity-client/types.ts';
import { securityKeyOptionsOf } from './use-mfa-step.ts';

const flow = (aal: string, value?: string) =>
  ({
    requested_aal: aal,
    ui: {
      nodes:
        value === undefined
          ? []
          : [
              {
                type: 'input',
                group: 'webauthn',
                attributes: { name: 'webauthn_challenge', value, node_type: 'input' },
                messages: [],
                meta: {},
              },
            ],
    },
  }) as unknown as LoginFlow;

describe('securityKeyOptionsOf', () => {
  it.each([
    ['no flow', null, null],
    ['an aal2 flow with a security key', flow('aal2', '{"publicKey":{"challenge":"c"}}'), { challenge: 'c' }],
    ['an aal2 flow without one (TOTP only)', flow('aal2'), null],
    ['an aal1 flow', flow('aal1', '{"publicKey":{"challenge":"c"}}'), null],
    ['unreadable options', flow('aal2', '{'), null],
  ])('%s', (_name, input, expected) => {
    expect(securityKeyOptionsOf(input)).toEqual(expected);
  });
});
