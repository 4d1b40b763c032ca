import type { Application } from '../../shared/config/env.ts';
import { paths } from '../../shared/config/paths.ts';

// Where a Microsoft 365 address typed on an application without Microsoft 365 sign-in is pointed.

export type M365Alternative =
  /** `device`: the login continues a device sign-in, which MAGIC's device page carries on. */
  { type: 'magic'; url: string; device: boolean } | { type: 'support'; email: string };

/**
 * MAGIC's m365 login when the person's organisation has MAGIC (and this is not MAGIC itself, whose
 * m365 sign-in is then not set up); otherwise the support contact. A device sign-in's login goes to
 * MAGIC's device page with the same login request: the code the person typed stays accepted, and
 * MAGIC signs them in with Microsoft 365 and shows the device's consent.
 */
export function selectM365Alternative(input: {
  application: Application;
  urlMap: Record<Application, string>;
  supportEmail: string;
  hasMagic: boolean;
  deviceLoginChallenge: string | null;
}): M365Alternative {
  if (input.hasMagic && input.application !== 'magic') {
    if (input.deviceLoginChallenge) {
      const url = new URL(paths.device, input.urlMap.magic);
      url.searchParams.set('login_challenge', input.deviceLoginChallenge);
      return { type: 'magic', url: url.toString(), device: true };
    }
    return { type: 'magic', url: new URL(paths.m365Login, input.urlMap.magic).toString(), device: false };
  }
  return { type: 'support', email: input.supportEmail };
}
