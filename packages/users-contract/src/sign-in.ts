// Why the user service refuses a sign-in's tokens (consent, `/admin/token-claims`), where the app
// answers a refusal with a step of its own.

/** The person has never accepted the terms of service and privacy policy: the app shows the Terms step, then asks again. */
export const TERMS_NOT_ACCEPTED = 'TERMS_NOT_ACCEPTED';

/** The account's address was never proven by its emailed code: no token until it is. */
export const EMAIL_NOT_VERIFIED = 'EMAIL_NOT_VERIFIED';
