import type { UiText } from '@ory/client';

/** What a key's labels carry: its name, when it was added and last used. */
interface KeyLabel {
  display_name: string;
  added_at: string;
  last_used_at: string | null;
}

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
  /** Not in Kratos: the address's organisation signs in through its SSO provider only (password sign-in and recovery refused). */
  ssoEnforced: () =>
    error(
      4010090,
      "Your organisation requires single sign-on (SSO). Sign in through your organisation's identity provider: a password can not be used or reset for this address.",
    ),
  /**
   * Not in Kratos: on a settings flow, why a member of an organisation that enforces SSO is offered
   * no new address, password or passkey (its break-glass admin is).
   */
  ssoManaged: () =>
    info(
      4010093,
      "Your organisation requires single sign-on (SSO). You sign in through your organisation's identity provider, so your email address, password and passkeys can not be changed here.",
    ),
  /** Not in Kratos: the organisation allows sign-in only from its trusted networks (issue 24). */
  networkNotTrusted: () =>
    error(
      4010091,
      "Your organisation allows sign-in only from its trusted networks, and you are outside them. Connect from your organisation's network, or ask its administrator.",
    ),
  /**
   * Not in Kratos: the authorization server remembered a login for this browser whose identity has
   * been deactivated since (console or directory); it asks for a login again, and the flow says why.
   */
  accountDeactivated: () =>
    error(4010092, "Your account is deactivated. Please contact your organisation's administrator."),
  noLoginStrategy: () =>
    error(4010002, 'Could not find a strategy to log you in with. Did you fill out the form correctly?'),
  loginExpired: (expiredAt: Date, now: Date) => {
    const minutes = (now.getTime() - expiredAt.getTime()) / 60_000;
    return error(4010001, `The login flow expired ${minutes.toFixed(2)} minutes ago, please try again.`, {
      expired_at: expiredAt.toISOString(),
      expired_at_unix: Math.floor(expiredAt.getTime() / 1000),
    });
  },
  registrationSignUp: () => info(1040001, 'Sign up'),
  labelTrait: (title: string) => info(1070002, title, { title }),
  duplicateAccount: () =>
    error(4000007, 'An account with the same identifier (email, phone, username, ...) exists already.'),
  /** Kratos's `require_verified_address` refusal: a sign-in before the address was proven by its code. */
  addressNotVerified: () =>
    error(4000010, 'Account not active yet. Did you forget to verify your email address?'),
  invalidEmail: (value: string) =>
    error(4000001, `"${value.slice(0, 64)}" is not valid "email"`, {
      reason: `"${value.slice(0, 64)}" is not valid "email"`,
    }),
  /**
   * Not in Kratos: self sign-up is open only for the domains of organisations that turned it on. One
   * text for every other address (unknown domain, sign-up off, SSO enforced), naming no organisation.
   */
  signUpNotOpen: () =>
    error(
      4040090,
      "Sign-up is not open for this email address. Ask your organisation's administrator for an invitation.",
    ),
  registrationExpired: (expiredAt: Date, now: Date) =>
    error(
      4040001,
      `The registration flow expired ${((now.getTime() - expiredAt.getTime()) / 60_000).toFixed(2)} minutes ago, please try again.`,
      { expired_at_unix: Math.floor(expiredAt.getTime() / 1000) },
    ),
  noRegistrationStrategy: () =>
    error(4000001, 'Could not find a strategy to sign you up with. Did you fill out the form correctly?', {
      reason: 'Could not find a strategy to sign you up with. Did you fill out the form correctly?',
    }),
  saved: () => success(1050001, 'Your changes have been saved!'),
  authCode: () => info(1010006, 'Authentication code'),
  useAuthenticator: () => info(1010009, 'Use Authenticator'),
  unlinkTotp: () => info(1050004, 'Unlink TOTP Authenticator App'),
  totpQr: () => info(1050005, 'Authenticator app QR code'),
  totpSecret: (secret: string) => info(1050006, secret, { secret }),
  totpSecretLabel: () =>
    info(1050017, 'This is your authenticator app secret. Use it if you can not scan the QR code.'),
  save: () => info(1070003, 'Save'),
  verifyCode: () => info(1070006, 'Verify code'),
  resendCode: () => info(1070008, 'Resend code'),
  continue: () => info(1070009, 'Continue'),
  recoveryCode: () => info(1070010, 'Recovery code'),
  verificationCode: () => info(1070011, 'Verification code'),
  invalidTotp: () => error(4000008, 'The provided authentication code is invalid, please try again.'),
  tooManyAttempts: () =>
    error(4000001, 'The request was submitted too often. Please request another code.', {
      reason: 'The request was submitted too often. Please request another code.',
    }),
  codeLocked: () =>
    error(4000001, 'Too many wrong codes were entered for this address. Please try again in an hour.', {
      reason: 'Too many wrong codes were entered for this address. Please try again in an hour.',
    }),
  /**
   * The per-IP code budget is spent: many people may share the address (a company's NAT), so the
   * text names the network, not the account, and says when to try again.
   */
  codeNetworkLocked: (retryAfterSec = 3600) => {
    const minutes = Math.max(1, Math.ceil(retryAfterSec / 60));
    const text = `Too many wrong codes were entered from your network. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
    return error(4000001, text, { reason: text });
  },
  totpLocked: () =>
    error(4000001, 'Too many wrong authentication codes were entered. Please try again in an hour.', {
      reason: 'Too many wrong authentication codes were entered. Please try again in an hour.',
    }),
  noTotp: () => error(4000011, 'You have no TOTP device set up.'),
  lookupUsed: () => error(4000012, 'This backup recovery code has already been used.'),
  noLookup: () => error(4000014, 'You have no backup recovery codes set up.'),
  lookupInvalid: () => error(4000016, 'The backup recovery code is not valid.'),
  lookupLabel: () => info(1010007, 'Backup recovery code'),
  useLookup: () => info(1010010, 'Use backup recovery code'),
  revealLookup: () => info(1050007, 'Reveal backup recovery codes'),
  regenerateLookup: () => info(1050008, 'Generate new backup recovery codes'),
  lookupSecret: (secret: string) => info(1050009, secret, { secret }),
  confirmLookup: () => info(1050010, 'Confirm backup recovery codes'),
  lookupList: (secrets: string[]) =>
    info(1050015, secrets.join(', '), {
      secrets: secrets.map((s) => ({ id: 1050009, text: s, type: 'info' })),
    }),
  disableLookup: () => info(1050016, 'Disable this method'),
  /**
   * Ours (not Kratos's): codes are stored hashed, so "reveal" can only say how many are left. Each
   * code is shown once, in the answer that makes it.
   */
  lookupRemaining: (remaining: number, total: number) =>
    info(1050022, `${remaining} of ${total} backup recovery codes are left.`, { remaining, total }),
  /** WebAuthn (Kratos ids where Kratos has one; 1050023–1050025 are ours: naming and renaming keys). */
  useSecurityKey: () => info(1010008, 'Use security key'),
  passkeyLogin: () => info(1010021, 'Sign in with passkey'),
  addSecurityKey: () => info(1050012, 'Add security key'),
  securityKeyName: () => info(1050013, 'Name of the security key'),
  removeSecurityKey: (key: KeyLabel) =>
    info(1050018, `Remove security key "${key.display_name}"`, { ...key }),
  addPasskey: () => info(1050019, 'Add passkey'),
  removePasskey: (key: KeyLabel) => info(1050020, `Remove passkey "${key.display_name}"`, { ...key }),
  passkeyName: () => info(1050023, 'Name of the passkey'),
  renamePasskey: (key: KeyLabel) => info(1050024, `Rename passkey "${key.display_name}"`, { ...key }),
  renameSecurityKey: (key: KeyLabel) =>
    info(1050025, `Rename security key "${key.display_name}"`, { ...key }),
  noWebAuthn: () => error(4000013, 'You have no WebAuthn device set up.'),
  webauthnUnreadable: () =>
    error(4000001, 'The answer of the passkey or security key could not be read. Please try again.', {
      reason: 'The answer of the passkey or security key could not be read. Please try again.',
    }),
  webauthnInvalid: () =>
    error(4000001, 'The passkey or security key could not be verified. Please try again.', {
      reason: 'The passkey or security key could not be verified. Please try again.',
    }),
  webauthnExpired: () =>
    error(4000001, 'The passkey request expired or was already answered. Please try again.', {
      reason: 'The passkey request expired or was already answered. Please try again.',
    }),
  keyNameInvalid: () =>
    error(4000001, 'Give the key a name of 1 to 64 characters.', {
      reason: 'Give the key a name of 1 to 64 characters.',
    }),
  keyLimit: (max: number) =>
    error(4000001, `At most ${max} keys can be registered. Remove one first.`, {
      reason: `At most ${max} keys can be registered. Remove one first.`,
    }),
  keyExists: () =>
    error(4000001, 'This key is already registered.', { reason: 'This key is already registered.' }),
  recovered: (minutes: number) =>
    success(
      1060001,
      `You successfully recovered your account. Please change your password or set up an alternative login method (e.g. social sign in) within the next ${minutes.toFixed(2)} minutes.`,
    ),
  recoveryCodeSent: () =>
    info(
      1060003,
      'An email containing a recovery code has been sent to the email address you provided. If you have not received an email, check the spelling of the address and make sure to use the address you registered with.',
    ),
  recoveryInvalidCode: () =>
    error(4060006, 'The recovery code is invalid or has already been used. Please try again.'),
  recoveryExpired: (expiredAt: Date, now: Date) =>
    error(
      4060005,
      `The recovery flow expired ${((now.getTime() - expiredAt.getTime()) / 60_000).toFixed(2)} minutes ago, please try again.`,
      {
        expired_at_unix: Math.floor(expiredAt.getTime() / 1000),
      },
    ),
  verificationCodeSent: () =>
    info(
      1080003,
      'An email containing a verification code has been sent to the email address you provided. If you have not received an email, check the spelling of the address and make sure to use the address you registered with.',
    ),
  verified: () => success(1080002, 'You successfully verified your email address.'),
  verificationInvalidCode: () =>
    error(4070006, 'The verification code is invalid or has already been used. Please try again.'),
  verificationExpired: (expiredAt: Date, now: Date) =>
    error(
      4070005,
      `The verification flow expired ${((now.getTime() - expiredAt.getTime()) / 60_000).toFixed(2)} minutes ago, please try again.`,
      {
        expired_at_unix: Math.floor(expiredAt.getTime() / 1000),
      },
    ),
  settingsExpired: (expiredAt: Date, now: Date) =>
    error(
      4050001,
      `The settings flow expired ${((now.getTime() - expiredAt.getTime()) / 60_000).toFixed(2)} minutes ago, please try again.`,
      {
        expired_at_unix: Math.floor(expiredAt.getTime() / 1000),
      },
    ),
  noSettingsStrategy: () =>
    error(
      4000001,
      'Could not find a strategy to update your settings. Did you fill out the form correctly?',
      {
        reason: 'Could not find a strategy to update your settings. Did you fill out the form correctly?',
      },
    ),
};
