import type { EmailResult } from '../../shared/storage/registry.ts';

// The Password step's way into self sign-up (issue 25).

/**
 * Whether the Password step offers "Create an account": only for an address whose organisation has
 * self sign-up open (the Email step's lookup says so per domain, never per account), and never for
 * SSO or Microsoft 365 addresses, nor on a password confirmation.
 */
export function selectSignUpLink(input: {
  step: string;
  emailResult: Pick<EmailResult, 'selfSignUp' | 'isSSO' | 'isM365'> | null;
}): boolean {
  const r = input.emailResult;
  if (input.step !== 'password' || !r) return false;
  return r.selfSignUp === true && !r.isSSO && !r.isM365;
}
