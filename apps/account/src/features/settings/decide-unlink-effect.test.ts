import { describe, expect, it } from 'vitest';
import { HttpError } from '../../shared/errors/http-error.ts';
import { decideUnlinkEffect } from './decide-unlink-effect.ts';

const p = { identityUrl: 'http://localhost:4433', returnTo: 'http://localhost:4000/account/settings' };

describe('decideUnlinkEffect', () => {
  it.each([
    [
      'unlinked, not a source-code-host user: stay',
      { ok: true as const },
      false,
      { type: 'unlinked', then: 'stay' },
    ],
    [
      'unlinked, a source-code-host user: sign in (links another)',
      { ok: true as const },
      true,
      { type: 'unlinked', then: 'sign-in' },
    ],
    [
      'needs a recent sign-in: password confirmation, back to the page',
      {
        ok: false as const,
        error: new HttpError(403, 'Forbidden', { errorCode: 'REAUTHENTICATION_REQUIRED', message: 'x' }),
      },
      false,
      {
        type: 'reauthenticate',
        to: 'http://localhost:4433/self-service/login/browser?refresh=true&return_to=http%3A%2F%2Flocalhost%3A4000%2Faccount%2Fsettings',
      },
    ],
    [
      'another refusal: its message',
      {
        ok: false as const,
        error: new HttpError(403, 'Forbidden', { errorCode: 'USER_NOT_LINKED', message: 'Not linked.' }),
      },
      false,
      { type: 'error', message: 'Not linked.' },
    ],
  ])('%s', (_name, input, isGitUser, expected) => {
    expect(decideUnlinkEffect(input, { ...p, isGitUser })).toEqual(expected);
  });
});
