/** The console's trusted networks (issue 24, ManageIPWhitelist), shared by the user service and the app. */
export interface TrustedNetworks {
  /** CIDR ranges (IPv4 or IPv6); empty: members may sign in from anywhere. */
  ranges: string[];
  /** The address the user service sees for this request (after the trusted proxies). */
  yourAddress: string;
  updatedAt: string | null;
}

/** `PUT …/trusted-networks`: `confirmLockout` must be true when `ranges` excludes the caller's address. */
export interface SetTrustedNetworks {
  ranges: string[];
  confirmLockout?: boolean;
}

/** The error code of a sign-in, refresh or token request refused outside the trusted networks. */
export const NETWORK_NOT_TRUSTED = 'NETWORK_NOT_TRUSTED';
/** The error code of a save that would lock the admin out without `confirmLockout`. */
export const LOCKOUT_CONFIRMATION_REQUIRED = 'LOCKOUT_CONFIRMATION_REQUIRED';
