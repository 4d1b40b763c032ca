/**
 * The identity service's flow messages in English: the source of truth for every other locale (ICU
 * syntax, compiled at start-up). The texts are Kratos's where Kratos has the message.
 */
export const en = {
  loginSignIn: 'Sign in',
  loginReauth: 'Please confirm this action by verifying that it is you.',
  loginMfa: 'Please complete the second authentication challenge.',
  loginWithPassword: 'Sign in with password',
  labelPassword: 'Password',
  labelId: 'ID',
  labelEmail: 'Email',
  labelFirstName: 'First name',
  labelLastName: 'Last name',
  generic: '{reason}',
  required: 'Property {property} is missing.',
  passwordTooLong: 'The password can not be used because it is longer than {max} bytes.',
  passwordNoNumber: 'The password can not be used because it does not contain a number.',
  passwordNoSpecial: 'The password can not be used because it does not contain a special character.',
  passwordRefused: 'The password can not be used because the identity service refused it.',
  invalidCredentials:
    'The provided credentials are invalid, check for spelling mistakes in your password or username, email address, or phone number.',
  passwordTooShort: 'The password must be at least {min} characters long, but got {actual}.',
  passwordTooSimilar: 'The password can not be used because it is too similar to the identifier.',
  passwordBreached: 'The password has been found in data breaches and must no longer be used.',
  ssoEnforced:
    "Your organisation requires single sign-on (SSO). Sign in through your organisation's identity provider: a password can not be used or reset for this address.",
  ssoManaged:
    "Your organisation requires single sign-on (SSO). You sign in through your organisation's identity provider, so your email address, password and passkeys can not be changed here.",
  networkNotTrusted:
    "Your organisation allows sign-in only from its trusted networks, and you are outside them. Connect from your organisation's network, or ask its administrator.",
  accountDeactivated: "Your account is deactivated. Please contact your organisation's administrator.",
  noLoginStrategy: 'Could not find a strategy to log you in with. Did you fill out the form correctly?',
  loginExpired: 'The login flow expired {minutes, number, fixed2} minutes ago, please try again.',
  registrationSignUp: 'Sign up',
  duplicateAccount: 'An account with the same identifier (email, phone, username, ...) exists already.',
  addressNotVerified: 'Account not active yet. Did you forget to verify your email address?',
  invalidEmail: '"{value}" is not valid "email"',
  signUpNotOpen:
    "Sign-up is not open for this email address. Ask your organisation's administrator for an invitation.",
  registrationExpired:
    'The registration flow expired {minutes, number, fixed2} minutes ago, please try again.',
  noRegistrationStrategy:
    'Could not find a strategy to sign you up with. Did you fill out the form correctly?',
  saved: 'Your changes have been saved!',
  authCode: 'Authentication code',
  useAuthenticator: 'Use Authenticator',
  unlinkTotp: 'Unlink TOTP Authenticator App',
  totpQr: 'Authenticator app QR code',
  secret: '{secret}',
  totpSecretLabel: 'This is your authenticator app secret. Use it if you can not scan the QR code.',
  save: 'Save',
  verifyCode: 'Verify code',
  resendCode: 'Resend code',
  continue: 'Continue',
  recoveryCode: 'Recovery code',
  verificationCode: 'Verification code',
  invalidTotp: 'The provided authentication code is invalid, please try again.',
  tooManyAttempts: 'The request was submitted too often. Please request another code.',
  codeLocked: 'Too many wrong codes were entered for this address. Please try again in an hour.',
  codeNetworkLocked:
    'Too many wrong codes were entered from your network. Please try again in {minutes, plural, one {# minute} other {# minutes}}.',
  totpLocked: 'Too many wrong authentication codes were entered. Please try again in an hour.',
  noTotp: 'You have no TOTP device set up.',
  lookupUsed: 'This backup recovery code has already been used.',
  noLookup: 'You have no backup recovery codes set up.',
  lookupInvalid: 'The backup recovery code is not valid.',
  lookupLabel: 'Backup recovery code',
  useLookup: 'Use backup recovery code',
  revealLookup: 'Reveal backup recovery codes',
  regenerateLookup: 'Generate new backup recovery codes',
  confirmLookup: 'Confirm backup recovery codes',
  lookupList: '{secrets}',
  disableLookup: 'Disable this method',
  lookupRemaining: '{remaining} of {total} backup recovery codes are left.',
  useSecurityKey: 'Use security key',
  passkeyLogin: 'Sign in with passkey',
  addSecurityKey: 'Add security key',
  securityKeyName: 'Name of the security key',
  removeSecurityKey: 'Remove security key "{name}"',
  addPasskey: 'Add passkey',
  removePasskey: 'Remove passkey "{name}"',
  passkeyName: 'Name of the passkey',
  renamePasskey: 'Rename passkey "{name}"',
  renameSecurityKey: 'Rename security key "{name}"',
  noWebAuthn: 'You have no WebAuthn device set up.',
  webauthnUnreadable: 'The answer of the passkey or security key could not be read. Please try again.',
  webauthnInvalid: 'The passkey or security key could not be verified. Please try again.',
  webauthnExpired: 'The passkey request expired or was already answered. Please try again.',
  keyNameInvalid: 'Give the key a name of 1 to 64 characters.',
  keyLimit: 'At most {max} keys can be registered. Remove one first.',
  keyExists: 'This key is already registered.',
  recovered:
    'You successfully recovered your account. Please change your password or set up an alternative login method (e.g. social sign in) within the next {minutes, number, fixed2} minutes.',
  recoveryCodeSent:
    'An email containing a recovery code has been sent to the email address you provided. If you have not received an email, check the spelling of the address and make sure to use the address you registered with.',
  recoveryInvalidCode: 'The recovery code is invalid or has already been used. Please try again.',
  recoveryExpired: 'The recovery flow expired {minutes, number, fixed2} minutes ago, please try again.',
  verificationCodeSent:
    'An email containing a verification code has been sent to the email address you provided. If you have not received an email, check the spelling of the address and make sure to use the address you registered with.',
  verified: 'You successfully verified your email address.',
  verificationInvalidCode: 'The verification code is invalid or has already been used. Please try again.',
  verificationExpired:
    'The verification flow expired {minutes, number, fixed2} minutes ago, please try again.',
  settingsExpired: 'The settings flow expired {minutes, number, fixed2} minutes ago, please try again.',
  noSettingsStrategy:
    'Could not find a strategy to update your settings. Did you fill out the form correctly?',
  noRecoveryStrategy:
    'Could not find a strategy to recover your account with. Did you fill out the form correctly?',
  noVerificationStrategy:
    'Could not find a strategy to verify your account with. Did you fill out the form correctly?',
  alreadyCompleted: 'The request was already completed successfully and can not be retried.',
  apiFlowUnsupported: 'The {method} method is not supported for API flows.',
  ssoNoMfa: 'SSO users cannot set up MFA',
  totpAlreadySet: 'A TOTP authenticator is already set up; unlink it first.',
  nameTooLong: 'The name is longer than {max} characters.',
  managedTrait: '{path} is managed by your organisation and can only be changed by an administrator.',
  // Single sign-on refusals (OIDC and SAML), shown on the login flow as 4000001.
  ssoUnknownProvider: 'This single sign-on provider is not configured. Contact your administrator.',
  ssoUnreachable: "Your organisation's identity provider could not be reached. Please try again later.",
  ssoForeignAnswer:
    'The answer from your identity provider does not belong to this sign-in attempt, or was already used. Please try again.',
  ssoDomain: "Your organisation's identity provider can not sign in this email address.",
  ssoInactive: 'This account is not active. Contact your administrator.',
  oidcCancelled: "Sign-in was cancelled at your organisation's identity provider.",
  oidcRefused: "Your organisation's identity provider refused the sign-in ({error}).",
  oidcTokenUnverified:
    "Your organisation's identity provider's answer could not be verified. Please try again or contact your administrator.",
  oidcUnusableAnswer:
    "Your organisation's identity provider gave an answer we could not use. Please try again.",
  oidcNoEmail: "Your organisation's identity provider did not confirm an email address for you.",
  oidcExpired: 'This sign-in took too long. Please try again.',
  samlMalformed: "Your organisation's identity provider sent an answer we could not read. Please try again.",
  samlStatus: "Your organisation's identity provider did not sign you in. Please try again.",
  samlSignature:
    "Your organisation's identity provider's answer is not signed with its registered certificate. Contact your administrator.",
  samlExpired:
    "Your organisation's identity provider's answer has expired or is not valid yet. Please try again, and check your device's clock.",
  samlAudience: "Your organisation's identity provider's answer was meant for another application.",
  samlDestination: "Your organisation's identity provider's answer was sent to the wrong address.",
  samlIssuer: "Your organisation's identity provider's answer comes from another identity provider.",
  samlReplayed:
    'This answer from your identity provider was already used. Start the sign-in again from the beginning.',
  samlNoEmail: "Your organisation's identity provider did not send an email address for you.",
  samlNotFinished:
    'This sign-in has no answer from your identity provider yet, or it was already used. Please try again.',
  // The user service's refusals of a single sign-on member (matched by their English text).
  memberOtherOrganisation:
    'This account belongs to another organisation than the one whose identity provider answered. Contact your administrator.',
  memberDomainMismatch: "The email address's domain does not belong to the provider's organisation.",
  memberExists: 'A user with this email address already exists.',
  memberDirectoryCreates:
    "Your organisation's directory creates accounts. Ask your administrator to give you access to this application.",
  memberNoJit:
    'Your organisation does not create accounts at first sign-in. Ask your administrator to add you.',
  memberUnknownProvider: 'No single sign-on provider has this id.',
  memberInvalidProvider: 'Unknown provider.',
  // A self-service body that does not decode (4000001).
  bodyNotJson: 'Unable to decode JSON payload: the body is not valid JSON.',
  bodyNotObject: 'Unable to decode JSON payload: expected a JSON object.',
  bodyReservedKey:
    'The request names a reserved key (__proto__, constructor or prototype), alone or as a segment of a dotted or slashed key.',
  bodyUnstorableText:
    'The request contains a NUL character or an invalid Unicode sequence (a lone surrogate).',
  // The profile method's trait checks (4000001): `path` is the trait's dotted path.
  traitMissing: '{path}: Invalid input: expected {expected}, received undefined',
  traitWrongType: '{path}: Invalid input: expected {expected}, received {received}',
  traitTooLong: '{path}: Too big: expected string to have <={max} characters',
  traitInvalidEmail: '{path}: Invalid email address',
  traitInvalidDatetime: '{path}: Invalid ISO datetime',
  traitInvalidOption: '{path}: Invalid option: expected one of {options}',
  traitUnknownKeys: '{path}: {count, plural, one {Unrecognized key} other {Unrecognized keys}}: {keys}',
} as const;
