import { z } from 'zod';

export const loginConfigQuerySchema = z.object({ emailAddress: z.string().max(1000) });

export const loginConfigSchema = z.object({
  email: z.string(),
  sso: z.boolean(),
  provider: z.string().nullable(),
  m365: z.boolean(),
  /** The organisation has MAGIC (where its Microsoft 365 people sign in when another application cannot). */
  magic: z.boolean(),
  /** The organisation has self sign-up open for the domain (issue 25). */
  selfSignUp: z.boolean(),
});

export type LoginConfig = z.input<typeof loginConfigSchema>;

const opaque = z.string().trim().min(1).max(2048);

/** The consent screen's answer; the platform's own applications (and remembered ones) need none. */
const consentDecisionSchema = z.enum(['allow', 'deny']);
export type ConsentDecision = z.infer<typeof consentDecisionSchema>;

export const consentBodySchema = z.object({
  consentChallenge: opaque,
  identitySessionId: opaque,
  decision: consentDecisionSchema.optional(),
});

export const consentScreenQuerySchema = z.object({ consentChallenge: opaque });

const webLink = z.string().nullable();

/** What the consent screen shows (`GET /login/consent/request`). Client-given texts are plain text. */
export const consentScreenSchema = z.object({
  /** False for the platform's own applications and an application already allowed these scopes. */
  needsConsent: z.boolean(),
  client: z.object({
    clientId: z.string(),
    name: z.string(),
    logoUri: webLink,
    clientUri: webLink,
    policyUri: webLink,
    tosUri: webLink,
  }),
  /** The organisation that registered the application; null: the operator did. */
  registeredBy: z.object({ organisation: z.string().nullable() }),
  requestedScope: z.array(z.string()),
  /** The organisation the person signs in for. */
  organisation: z.object({ name: z.string() }),
});

export const deviceVerifyBodySchema = z.object({
  deviceChallenge: opaque,
  userCode: z.string().trim().min(1).max(64),
});

/**
 * The device page's Deny. A sign-in through the identity service names its session, as the
 * approval does (`/login/consent`); a Microsoft 365 person sends their token as the bearer.
 */
export const deviceDenyBodySchema = z.object({
  consentChallenge: opaque,
  identitySessionId: opaque.optional(),
});

export const deviceConsentQuerySchema = z.object({ consentChallenge: opaque });

/** What the device page shows before the person approves: which client asks for which access. */
export const deviceConsentSchema = z.object({
  clientId: z.string(),
  clientName: z.string(),
  requestedScope: z.array(z.string()),
  /** How the person signed in: `m365` approves with the Microsoft 365 token (`/m365/device/consent`). */
  authenticationMode: z.enum(['ory', 'm365']),
});

export const logoutBodySchema = z.object({ logoutChallenge: opaque });

export const redirectSchema = z.object({ redirectTo: z.string().min(1) });

/** `POST /admin/token-claims`: the authorization server asks for a grant's claims. */
export const tokenClaimsBodySchema = z.union([
  z
    .object({
      identitySessionId: opaque,
      subject: opaque,
      purpose: z.enum(['sign-in', 'refresh']),
      clientAddress: z.string().max(64).optional(),
    })
    .strict(),
  // A Microsoft 365 person's device grant at refresh: no identity session; the person is re-checked.
  z
    .object({
      method: z.literal('m365'),
      subject: opaque,
      purpose: z.literal('refresh'),
      clientAddress: z.string().max(64).optional(),
    })
    .strict(),
]);

export const tokenClaimsSchema = z.object({
  access_token: z.record(z.string(), z.unknown()),
  id_token: z.record(z.string(), z.unknown()),
});
