// Kratos wire types, type-only from @ory/client (zero bytes shipped).
export type {
  LoginFlow,
  LogoutFlow,
  RecoveryFlow,
  RegistrationFlow,
  Session,
  SettingsFlow,
  UiContainer,
  UiNode,
  UiText,
  VerificationFlow,
} from '@ory/client';

/** The identity traits of this product (the identity service's contract). */
export type { Traits } from '@acme/identity-contract/traits';
