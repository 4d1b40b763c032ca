import { APPLICATION_DEFAULTS, APPLICATIONS, type Application } from '../config/applications.ts';
import type { AccountConfig } from '../config/env.ts';

/** Where "Back to <application>" goes, and the application's name. */
export interface BackLink {
  name: string;
  href: string;
}

/**
 * "Back to <application>": only when the page was opened from an application (`from`, an application
 * id, in the page's query) and that application is in this deployment's URL map. The application's
 * own pages come back to its initial page on this origin; another application's to its origin (its
 * root goes to its initial page). Any other value shows no link: `from` is never used as a URL.
 */
export function selectBackLink(
  from: string | undefined,
  config: Pick<AccountConfig, 'application' | 'appName' | 'urlMap'>,
  ownHome: string,
): BackLink | null {
  const app = knownApplication(from);
  if (!app) return null;
  if (app === config.application) return { name: config.appName, href: ownHome };
  const origin = config.urlMap[app];
  return origin ? { name: APPLICATION_DEFAULTS[app].name, href: `${origin}/` } : null;
}

/** `from` when it is an application id; anything else counts as no `from` at all. */
export function knownApplication(from: string | undefined): Application | undefined {
  return from && (APPLICATIONS as readonly string[]).includes(from) ? (from as Application) : undefined;
}

/** `href` with the `from` application carried on (same-origin paths only; others are left as they are). */
export function carryFrom(href: string, from: string | undefined): string {
  if (!from || !href.startsWith('/')) return href;
  const url = new URL(href, 'http://x');
  url.searchParams.set('from', from);
  return url.pathname + url.search;
}
