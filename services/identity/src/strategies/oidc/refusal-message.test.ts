import { describe, expect, it } from 'vitest';
import { catalogue, messages } from '../../ui/messages.ts';
import { refusalMessage } from './accounts.ts';

// What a refused single sign-on says, the same for OIDC and SAML (each passes its own last resort).

describe('refusalMessage', () => {
  const otherOrganisation = catalogue.t('en', 'memberOtherOrganisation');

  it.each([
    [
      'a deactivated account says so, whatever else is known',
      { reason: 'inactive', message: 'x' },
      'ssoInactive',
    ],
    [
      "the user service's own words, as the catalogue's message",
      { reason: 'refused', message: otherOrganisation },
      messages.refusalText(otherOrganisation),
    ],
    [
      'words the catalogue does not know, as they are',
      { reason: 'jit_disabled', message: 'No.' },
      messages.refusalText('No.'),
    ],
    ["no words: the method's own text", { reason: 'refused' }, 'oidcUnusableAnswer'],
  ] as const)('%s', (_, refusal, expected) => {
    expect(refusalMessage({ ok: false, ...refusal }, 'oidcUnusableAnswer')).toEqual(expected);
  });
});
