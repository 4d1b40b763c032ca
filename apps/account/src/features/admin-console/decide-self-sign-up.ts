import { SELF_SIGNUP_NOT_ALLOWED, type ConsoleSelfSignUp } from '@acme/users-contract/console';
import { consoleCopy as t } from './copy.ts';

// The Sign-up section, pure: what the switch shows for the saved setting, and what a refused save
// means. The user service decides (one predicate for the operator and the console); this only shows.

export interface SelfSignUpView {
  checked: boolean;
  /** Turning it on is blocked (SSO enforced, SCIM); turning it off never is. */
  disabled: boolean;
  state: string;
  /** Why it can not be turned on; null when it can. */
  explanation: string | null;
}

export function selectSelfSignUpView(setting: ConsoleSelfSignUp): SelfSignUpView {
  const explanation = setting.blockedBy === null ? null : t.signup.blocked[setting.blockedBy];
  return {
    checked: setting.enabled,
    disabled: setting.blockedBy !== null && !setting.enabled,
    state: setting.enabled ? t.signup.on : t.signup.off,
    explanation,
  };
}

/** A refused save: the reason's explanation when the service names one, else its message. */
export function decideSelfSignUpFailure(failure: {
  status: number | null;
  body: unknown;
  message: string;
}): string {
  const body = (failure.body ?? {}) as { errorCode?: unknown; reason?: unknown };
  if (failure.status === 403 && body.errorCode === SELF_SIGNUP_NOT_ALLOWED) {
    if (body.reason === 'sso' || body.reason === 'scim') return t.signup.blocked[body.reason];
  }
  return failure.message;
}
