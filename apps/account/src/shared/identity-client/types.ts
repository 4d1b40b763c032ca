// Kratos wire types, type-only from @ory/client (zero bytes shipped).
export type {
  LoginFlow,
  LogoutFlow,
  RecoveryFlow,
  Session,
  SettingsFlow,
  UiContainer,
  UiNode,
  UiText,
  VerificationFlow,
} from '@ory/client';

/** The identity traits of this product. */
export interface Traits {
  userServiceID?: string;
  email: string;
  name?: { first?: string; last?: string };
  onboarding?: {
    isGitUser?: boolean;
    mfaSetupDeadline?: string | null;
    gitProviderConnected?: boolean;
    tosAccepted?: boolean;
  };
}
