import type { Application } from '../../shared/config/env.ts';
import { paths } from '../../shared/config/paths.ts';

// Where a Microsoft 365 address typed on an application without Microsoft 365 sign-in is pointed.

export type M365Alternative = { type: 'magic'; url: string } | { type: 'support'; email: string };

/**
 * MAGIC's m365 login when the person's organisation has MAGIC (and this is not MAGIC itself, whose
 * m365 sign-in is then not set up); otherwise the support contact.
 */
export function selectM365Alternative(input: {
  application: Application;
  urlMap: Record<Application, string>;
  supportEmail: string;
  hasMagic: boolean;
}): M365Alternative {
  if (input.hasMagic && input.application !== 'magic') {
    return { type: 'magic', url: new URL(paths.m365Login, input.urlMap.magic).toString() };
  }
  return { type: 'support', email: input.supportEmail };
}
