import { flowUi } from './dom.ts';

// Wire-shaped answers of the identity (Kratos-compatible) service and the token endpoint for screen tests.

const FAR_FUTURE = '2999-01-01T00:00:00Z';

export interface SessionOptions {
  email?: string;
  aal?: string | undefined;
  methods?: string[];
  verified?: boolean;
  onboarding?: {
    tosAccepted?: boolean;
    mfaSetupDeadline?: string | null;
    isGitUser?: boolean;
    gitProviderConnected?: boolean;
  };
}

/** A `GET /sessions/whoami` body: aal1 password session of ada@acme.test, onboarding done, 2FA deadline ahead. */
export function kratosSession(options: SessionOptions = {}) {
  const email = options.email ?? 'ada@acme.test';
  return {
    id: 'sess-1',
    active: true,
    authenticator_assurance_level: options.aal ?? 'aal1',
    authentication_methods: (options.methods ?? ['password']).map((method) => ({ method })),
    identity: {
      id: 'i-1',
      traits: {
        email,
        onboarding: {
          tosAccepted: true,
          mfaSetupDeadline: FAR_FUTURE,
          isGitUser: false,
          gitProviderConnected: false,
          ...options.onboarding,
        },
      },
      verifiable_addresses: [{ value: email, verified: options.verified ?? true }],
    },
  };
}

/** A browser self-service flow of `kind` (login, recovery, settings, verification) with a csrf node. */
export function browserFlow(
  kind: string,
  id: string,
  state: string,
  nodes: unknown[] = [],
  messages: unknown[] = [],
) {
  return { id, type: 'browser', state, ui: flowUi(id, kind, nodes, messages) };
}

/** A login flow's `passkey_challenge` node: the WebAuthn request options as the identity service sends them. */
export function passkeyChallengeNode(publicKey: unknown) {
  return {
    type: 'input',
    group: 'passkey',
    attributes: {
      name: 'passkey_challenge',
      type: 'hidden',
      value: JSON.stringify({ publicKey }),
      node_type: 'input',
    },
    messages: [],
    meta: {},
  };
}

/** The settings-flow nodes of a TOTP setup: the QR image and the secret text. */
export const totpSetupNodes = [
  {
    type: 'img',
    group: 'totp',
    attributes: { id: 'totp_qr', src: 'data:image/png;base64,AAAA', node_type: 'img' },
    messages: [],
    meta: {},
  },
  {
    type: 'text',
    group: 'totp',
    attributes: {
      id: 'totp_secret_key',
      text: { id: 1050006, type: 'info', text: 'JBSWY3DPEHPK3PXP' },
      node_type: 'text',
    },
    messages: [],
    meta: {},
  },
];

/** The terms versions the user service answers. */
export const TERMS = {
  terms: { version: '2026-01', url: 'http://localhost:4000/terms' },
  privacy: { version: '2026-01', url: 'http://localhost:4000/privacy' },
};

/** An unsigned JWT-shaped string (the app only decodes the payload; the server checks signatures). */
export function fakeJwt(payload: unknown): string {
  const enc = (v: unknown) =>
    btoa(JSON.stringify(v)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  return `${enc({ alg: 'RS256' })}.${enc(payload)}.sig`;
}
