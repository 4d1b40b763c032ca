import type { FlowKind } from '../db/flows.ts';
import { recoveryCode } from '../strategies/code/recovery.ts';
import { verificationCode } from '../strategies/code/verification.ts';
import { passwordLogin } from '../strategies/password/login.ts';
import { passwordSettings } from '../strategies/password/settings.ts';
import { profileSettings } from '../strategies/profile/settings.ts';
import { lookupLogin } from '../strategies/lookup/login.ts';
import { lookupSettings } from '../strategies/lookup/settings.ts';
import { totpLogin } from '../strategies/totp/login.ts';
import { totpSettings } from '../strategies/totp/settings.ts';
import { oidcLogin } from '../strategies/oidc/strategy.ts';
import { samlLogin } from '../strategies/saml/strategy.ts';
import { passkeyLogin } from '../strategies/passkey/login.ts';
import { passkeySettings } from '../strategies/passkey/settings.ts';
import { webauthnLogin } from '../strategies/webauthn/login.ts';
import { webauthnSettings } from '../strategies/webauthn/settings.ts';
import { loginKind } from './kinds/login.ts';
import { recoveryKind } from './kinds/recovery.ts';
import { settingsKind } from './kinds/settings.ts';
import { verificationKind } from './kinds/verification.ts';
import { registrationKind } from './kinds/registration.ts';
import { passwordRegistration } from '../strategies/registration/password.ts';
import type { FlowKindSpec } from './kind.ts';
import type { Registry } from './strategy.ts';

/** The flow kinds the engine serves. */
export const flowKinds: Record<FlowKind, FlowKindSpec> = {
  login: loginKind,
  settings: settingsKind,
  recovery: recoveryKind,
  verification: verificationKind,
  registration: registrationKind,
};

/**
 * Every method the service knows, per flow kind, in the order their nodes appear. A new sign-in
 * method is one strategy file and one line here; `IDENTITY_METHODS` decides which are enabled.
 */
export const knownStrategies: Registry = {
  login: [passwordLogin, totpLogin, lookupLogin, oidcLogin, samlLogin, passkeyLogin, webauthnLogin],
  settings: [
    profileSettings,
    passwordSettings,
    totpSettings,
    lookupSettings,
    passkeySettings,
    webauthnSettings,
  ],
  recovery: [recoveryCode],
  verification: [verificationCode],
  registration: [passwordRegistration],
};

/**
 * The strategies of `known` whose method is in `enabled` (the configuration's method list, as
 * Kratos's `selfservice.methods.<method>.enabled`). A configured method nobody implements is a start error.
 */
export function enabledStrategies(known: Registry, enabled: readonly string[]): Registry {
  const methods = new Set(Object.values(known).flatMap((list) => list.map((s) => s.method)));
  const unknown = enabled.filter((m) => !methods.has(m));
  if (unknown.length) throw new Error(`IDENTITY_METHODS names unknown methods: ${unknown.join(', ')}`);
  const on = new Set(enabled);
  const out = {} as Registry;
  for (const kind of Object.keys(known) as FlowKind[])
    out[kind] = known[kind].filter((s) => on.has(s.method));
  return out;
}
