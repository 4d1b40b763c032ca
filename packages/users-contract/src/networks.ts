// Wire shapes of the console's trusted networks (issue 24, ManageIPWhitelist), as zod schemas: the
// user service validates requests and answers with them and generates its OpenAPI document from
// them; the admin screen uses the types inferred from them.

import { z } from 'zod';

/** `GET`/`PUT …/trusted-networks`'s answer. */
export const trustedNetworksSchema = z.object({
  /** CIDR ranges (IPv4 or IPv6); empty: members may sign in from anywhere. */
  ranges: z.array(z.string()),
  /** The address the user service sees for this request (after the trusted proxies). */
  yourAddress: z.string(),
  updatedAt: z.iso.datetime().nullable(),
});
export type TrustedNetworks = z.infer<typeof trustedNetworksSchema>;

/**
 * `PUT …/trusted-networks`: `confirmLockout` must be true when `ranges` excludes the caller's
 * address. The service also bounds the number of ranges (its setting) and parses each as a range.
 */
export const setTrustedNetworksSchema = z
  .object({
    ranges: z.array(z.string().max(64)),
    confirmLockout: z.boolean().optional(),
  })
  .strict();
export type SetTrustedNetworks = z.infer<typeof setTrustedNetworksSchema>;

/** The error code of a sign-in, refresh or token request refused outside the trusted networks. */
export const NETWORK_NOT_TRUSTED = 'NETWORK_NOT_TRUSTED';
/** The error code of a save that would lock the admin out without `confirmLockout`. */
export const LOCKOUT_CONFIRMATION_REQUIRED = 'LOCKOUT_CONFIRMATION_REQUIRED';
