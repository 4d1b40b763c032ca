import type { LegalDocument } from './legal-documents.ts';

// What the Terms of Service and Privacy Notice pages show, as one pure function.

/** The user service's answer for this document (`GET /terms/current`). */
export type CurrentDocument =
  { status: 'loading' } | { status: 'error' } | { status: 'ok'; version: string; url: string };

export interface LegalDocumentInput {
  /** `?version=` of the page's address. */
  queryVersion: string | null;
  current: CurrentDocument;
  /** This page's own path (`/account/terms` or `/account/privacy`). */
  pagePath: string;
  /** Origins of the applications (each serves the same pages). */
  appOrigins: string[];
  /** The shipped versions, newest first. */
  shipped: readonly LegalDocument[];
}

export type LegalDocumentView =
  { type: 'loading' } | { type: 'redirect'; url: string } | { type: 'show'; document: LegalDocument };

function isOwnPage(url: string, input: LegalDocumentInput): boolean {
  const parsed = URL.parse(url);
  if (!parsed) return true; // not a usable address: stay and show the sample
  return parsed.pathname === input.pagePath && input.appOrigins.includes(parsed.origin);
}

/**
 * 1. A shipped version asked for by the address is shown as it is.
 * 2. While the user service has not answered: loading.
 * 3. The organisation's real document is elsewhere (the configured URL is not this page): go there.
 * 4. The current version, when shipped.
 * 5. Otherwise (no answer, or a version that is not shipped) the newest shipped version.
 */
export function selectLegalDocument(input: LegalDocumentInput): LegalDocumentView {
  const byVersion = (version: string | null) => input.shipped.find((d) => d.version === version);
  const asked = byVersion(input.queryVersion);
  if (asked) return { type: 'show', document: asked };
  const { current } = input;
  if (current.status === 'loading') return { type: 'loading' };
  if (current.status === 'ok' && /^https?:/i.test(current.url) && !isOwnPage(current.url, input)) {
    return { type: 'redirect', url: current.url };
  }
  const shown = (current.status === 'ok' ? byVersion(current.version) : undefined) ?? input.shipped[0];
  return shown ? { type: 'show', document: shown } : { type: 'loading' };
}
