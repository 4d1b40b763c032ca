import type { UiText } from '@ory/client';

/** Kratos UI messages (`text/id.go`, `text/message_*.go`). */
const info = (id: number, text: string, context?: Record<string, unknown>): UiText => ({
  id,
  text,
  type: 'info',
  ...(context ? { context } : {}),
});
const error = (id: number, text: string, context?: Record<string, unknown>): UiText => ({
  id,
  text,
  type: 'error',
  ...(context ? { context } : {}),
});
const success = (id: number, text: string, context?: Record<string, unknown>): UiText => ({
  id,
  text,
  type: 'success',
  ...(context ? { context } : {}),
});

export const messages = {
  loginSignIn: () => info(1010001, 'Sign in'),
  loginReauth: () => info(1010003, 'Please confirm this action by verifying that it is you.'),
  loginMfa: () => info(1010004, 'Please complete the second authentication challenge.'),
  loginWithPassword: () => info(1010022, 'Sign in with password'),
  labelPassword: () => info(1070001, 'Password'),
  labelId: () => info(1070004, 'ID'),
  labelEmail: () => info(1070007, 'Email'),
  generic: (reason: string) => error(4000001, reason, { reason }),
  required: (property: string) => error(4000002, `Property ${property} is missing.`, { property }),
  passwordPolicy: (reason: string) =>
    error(4000005, `The password can not be used because ${reason}.`, { reason }),
  invalidCredentials: () =>
    error(
      4000006,
      'The provided credentials are invalid, check for spelling mistakes in your password or username, email address, or phone number.',
    ),
  passwordTooShort: (min: number, actual: number) =>
    error(4000032, `The password must be at least ${min} characters long, but got ${actual}.`, {
      min_length: min,
      actual_length: actual,
    }),
  passwordTooSimilar: () =>
    error(4000031, 'The password can not be used because it is too similar to the identifier.'),
  passwordBreached: () =>
    error(4000034, 'The password has been found in data breaches and must no longer be used.'),
  noLoginStrategy: () =>
    error(4010002, 'Could not find a strategy to log you in with. Did you fill out the form correctly?'),
  loginExpired: (expiredAt: Date, now: Date) => {
    const minutes = (now.getTime() - expiredAt.getTime()) / 60_000;
    return error(4010001, `The login flow expired ${minutes.toFixed(2)} minutes ago, please try again.`, {
      expired_at: expiredAt.toISOString(),
      expired_at_unix: Math.floor(expiredAt.getTime() / 1000),
    });
  },
  saved: () => success(1050001, 'Your changes have been saved!'),
};
