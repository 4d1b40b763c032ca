import { PROTOTYPE_KEY_MESSAGE } from '@acme/service-kit/prototype';
import { UNSTORABLE_TEXT_MESSAGE } from '@acme/service-kit/text';
import { TraitsSchema } from '@acme/identity-contract/traits';
import { describe, expect, it } from 'vitest';
import { BODY_REFUSALS } from '../../http/body.ts';
import { catalogue, messages } from '../../ui/messages.ts';
import { traitIssueMessage } from './trait-issues.ts';

/** The catalogue key a built message was made of (kept beside it until the answer is localised). */
const keyOf = (m: unknown) => (m as { i18n: { key: string } }).i18n.key;

const EMAIL = 'a@example.com';

describe('trait check refusals', () => {
  it.each([
    ['a missing email', {}, 'traitMissing'],
    ['a number for an email', { email: 5 }, 'traitWrongType'],
    ['null for a first name', { email: EMAIL, name: { first: null } }, 'traitWrongType'],
    ['an array for the name', { email: EMAIL, name: [1] }, 'traitWrongType'],
    ['a text for a flag', { email: EMAIL, onboarding: { isGitUser: 'yes' } }, 'traitWrongType'],
    ['a text for the traits', 'traits', 'traitWrongType'],
    ['a too long first name', { email: EMAIL, name: { first: 'x'.repeat(257) } }, 'traitTooLong'],
    ['an address that is not one', { email: 'nope' }, 'traitInvalidEmail'],
    [
      'a date that is not one',
      { email: EMAIL, onboarding: { mfaSetupDeadline: 'soon' } },
      'traitInvalidDatetime',
    ],
    ['an unknown locale', { email: EMAIL, locale: 'xx' }, 'traitInvalidOption'],
    ['one unknown key', { email: EMAIL, name: { middle: 'x' } }, 'traitUnknownKeys'],
    ['two unknown keys', { email: EMAIL, a: 1, b: 2 }, 'traitUnknownKeys'],
  ])('%s: its own key, the English exactly zod’s after the path', (_, input, key) => {
    const parsed = TraitsSchema.safeParse(input);
    expect(parsed.success).toBe(false);
    const [issue] = parsed.error!.issues;
    const message = traitIssueMessage(issue!, input);
    expect(keyOf(message)).toBe(key);
    expect(message.text).toBe(`${issue!.path.join('.') || 'traits'}: ${issue!.message}`);
    expect(message).toMatchObject({ id: 4000001, type: 'error', context: { reason: message.text } });
  });

  it('an issue no key words as zod does keeps zod’s English through the documented fallback', () => {
    const message = traitIssueMessage(
      { code: 'custom', path: ['name'], message: 'Something unforeseen', input: undefined },
      {},
    );
    expect(keyOf(message)).toBe('generic');
    expect(message.text).toBe('name: Something unforeseen');
  });
});

describe('refusals worded elsewhere', () => {
  it('the body decoder’s reasons have their keys (the catalogue says exactly what service-kit says)', () => {
    expect(catalogue.t('en', 'bodyNotJson')).toBe(BODY_REFUSALS.notJson);
    expect(catalogue.t('en', 'bodyNotObject')).toBe(BODY_REFUSALS.notObject);
    expect(keyOf(messages.refusalText(BODY_REFUSALS.notJson))).toBe('bodyNotJson');
    expect(catalogue.t('en', 'bodyReservedKey')).toBe(PROTOTYPE_KEY_MESSAGE);
    expect(catalogue.t('en', 'bodyUnstorableText')).toBe(UNSTORABLE_TEXT_MESSAGE);
    expect(keyOf(messages.refusalText(PROTOTYPE_KEY_MESSAGE))).toBe('bodyReservedKey');
    expect(keyOf(messages.refusalText(UNSTORABLE_TEXT_MESSAGE))).toBe('bodyUnstorableText');
  });

  it('a text nothing is known to send is shown as given', () => {
    const message = messages.refusalText('Something else.');
    expect(message).toMatchObject({
      id: 4000001,
      text: 'Something else.',
      context: { reason: 'Something else.' },
    });
    expect(keyOf(message)).toBe('generic');
  });
});
