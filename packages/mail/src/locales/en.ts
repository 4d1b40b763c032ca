/**
 * Every text of the mails in English: the source of truth for the other locales (ICU syntax,
 * compiled at start-up). Values are put in as plain text; the templates escape the result for HTML.
 */
export const en = {
  hello: 'Hello,',
  helloName: 'Hello {name},',
  signature: 'The {app} team',
  recoverySubject: 'Your {app} password recovery code',
  recoveryLead: 'Someone asked to recover the password of your {app} account. Enter this code to continue:',
  recoveryIgnore: 'If you did not ask for this, you can ignore this email: your password stays unchanged.',
  verificationSubject: 'Verify your email address for {app}',
  verificationLead: 'Enter this code to verify your email address for {app}:',
  verificationIgnore: 'If you did not ask for this, you can ignore this email.',
  invitationSubject: '{org} invited you to {app}',
  invitationLeadText: '{org} invited you to join {app}. Open this link to set up your account:',
  invitationLeadHtml: '{org} invited you to join {app}. Use the button below to set up your account.',
  invitationButton: 'Accept the invitation',
  invitationCopyLink: 'Or copy this link into your browser:',
  invitationExpires: 'The invitation expires on {expires}. If it has expired, ask {org} for a new one.',
  invitationIgnore: 'If you did not expect this invitation, you can ignore this email.',
  passwordChangedSubject: 'Your {app} password was changed',
  passwordChangedLead: 'The password of your {app} account was changed on {when}.',
  totpAddedSubject: 'Two-factor authentication was turned on for {app}',
  totpAddedLead: 'An authenticator app was added as the second factor of your {app} account on {when}.',
  totpRemovedSubject: 'Two-factor authentication was turned off for {app}',
  totpRemovedLead: 'The authenticator app was removed from your {app} account on {when}.',
  emailChangedSubject: 'The email address of your {app} account was changed',
  emailChangedLead: 'The email address of your {app} account was changed on {when}.',
  emailChangedToLead: 'The email address of your {app} account was changed to {newEmail} on {when}.',
  backupCodesCreatedSubject: 'New backup codes were made for your {app} account',
  backupCodesCreatedLead:
    'A new set of backup codes was made for your {app} account, and any earlier backup codes no longer work. This happened on {when}.',
  backupCodesRemovedSubject: 'The backup codes of your {app} account were removed',
  backupCodesRemovedLead: 'The backup codes of your {app} account were removed on {when}.',
  backupCodeUsedSubject: 'A backup code was used to sign in to {app}',
  backupCodeUsedLead:
    'A backup code was used instead of the authenticator app to sign in to your {app} account on {when}.',
  backupCodesLeft:
    '{remaining, plural, one {# unused backup code is left.} other {# unused backup codes are left.}}',
  backupCodesLeftFew:
    '{remaining, plural, one {# unused backup code is left; make a new set in your account settings.} other {# unused backup codes are left; make a new set in your account settings.}}',
  passkeyAddedSubject: 'A passkey was added to your {app} account',
  passkeyAddedLead: 'A passkey was added to your {app} account; it can sign in without a password on {when}.',
  passkeyRemovedSubject: 'A passkey was removed from your {app} account',
  passkeyRemovedLead: 'A passkey was removed from your {app} account on {when}.',
  securityKeyAddedSubject: 'A security key was added to your {app} account',
  securityKeyAddedLead: 'A security key was added as a second factor of your {app} account on {when}.',
  securityKeyRemovedSubject: 'A security key was removed from your {app} account',
  securityKeyRemovedLead:
    'A security key was removed from the second factors of your {app} account on {when}.',
  noticeIfYou: 'If you made this change, there is nothing more to do.',
  noticeIfNot: 'If you did not, recover your password at once and tell your {app} administrator.',
  lockoutSubject: 'Sign-in to your {app} account is paused',
  lockoutLead:
    'There were too many wrong password attempts for your {app} account, so signing in with a password is paused until {until}.',
  lockoutOptions: 'What you can do:',
  lockoutWait: 'wait until {until} and sign in again;',
  lockoutResetText: 'or reset your password with "Forgot password" ({link}), which ends the pause at once;',
  lockoutResetHtml: 'or reset your password with {link}, which ends the pause at once;',
  lockoutForgotPassword: 'Forgot password',
  lockoutAdmin: 'or ask your {app} administrator to end it.',
  lockoutIfNot:
    'If these attempts were not yours, someone may be guessing your password: reset it and tell your administrator.',
  unprovenSubject: 'Sign-in methods you did not set up were removed from your {app} account',
  unprovenLead:
    'An {app} account had been started with your email address, but the address was never confirmed. On {when} you became its owner, so its password, passkeys, second factors and sessions were removed: nobody who set them up can sign in with them.',
  unprovenNext:
    'Sign in as your organisation asks you to; you can add a password or a passkey in your account settings.',
  unprovenIfNot: 'If you did not expect this, tell your {app} administrator.',
  webhookDisabledSubject: '{app}: a webhook endpoint was disabled',
  webhookDisabledBody:
    'A webhook endpoint of your organisation, {url}, failed every delivery for 24 hours and was disabled. Events are no longer sent to it. Fix the receiver, then set the endpoint active again in the {app} admin console (Webhooks); its failed deliveries can be redelivered from there.',
} as const;
