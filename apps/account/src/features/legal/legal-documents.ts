// The sample Terms of Service and Privacy Notice the product ships with, one entry per version. The
// user service keeps only each document's current version and URL (TERMS_VERSION / TERMS_URL,
// PRIVACY_VERSION / PRIVACY_URL); by default the URL is this app's /account/terms or /account/privacy,
// which shows the version below. An organisation publishes its real documents by pointing the URLs at
// them (the pages then forward there). The text is sample text, and the pages say so.
//
// The documents are content, not interface copy, so they live here (in the pages' own chunk) rather
// than in copy.ts, which every screen loads.

export type LegalDocumentKind = 'terms' | 'privacy';

interface LegalSection {
  heading: string;
  paragraphs: string[];
}

export interface LegalDocument {
  version: string;
  /** ISO date the version takes effect. */
  effective: string;
  sections: LegalSection[];
}

const TERMS_2026_01: LegalDocument = {
  version: '2026-01',
  effective: '2026-01-01',
  sections: [
    {
      heading: '1. Who these terms are between',
      paragraphs: [
        'These terms are between the provider of the platform and the organisation that subscribes to it. People who sign in do so on behalf of their organisation.',
      ],
    },
    {
      heading: '2. Using the platform',
      paragraphs: [
        'You may use the platform for your organisation’s research and strategy work, within the products and permissions your organisation has given you.',
        'Keep your password and second factor to yourself, and tell your organisation’s administrator at once if you think someone else has used your account.',
      ],
    },
    {
      heading: '3. Data',
      paragraphs: [
        'Data bundles are licensed to your organisation. Do not copy them outside the platform unless your organisation’s licence allows it.',
        'How we handle personal data is described in the Privacy Notice.',
      ],
    },
    {
      heading: '4. Changes',
      paragraphs: [
        'When these terms change, the version number changes and you are asked to accept the new version at your next sign-in.',
      ],
    },
  ],
};

const PRIVACY_2026_01: LegalDocument = {
  version: '2026-01',
  effective: '2026-01-01',
  sections: [
    {
      heading: '1. What we collect',
      paragraphs: [
        'Your name, work email address and organisation; when you signed in and with which method; and which versions of these documents you accepted, with the time, IP address and browser.',
      ],
    },
    {
      heading: '2. Why',
      paragraphs: [
        'To sign you in, to keep your account secure (for example, to limit sign-in attempts), and to show that your organisation’s people accepted the terms.',
      ],
    },
    {
      heading: '3. Who sees it',
      paragraphs: [
        'Your organisation’s administrators and the provider’s operators. Single sign-on and Microsoft 365 providers see what they need to sign you in.',
      ],
    },
    {
      heading: '4. Your rights',
      paragraphs: [
        'Ask your organisation’s administrator or the provider’s support to see, correct or delete what is held about you.',
      ],
    },
  ],
};

/** Every shipped version of each document, newest first. */
export const LEGAL_DOCUMENTS: Readonly<Record<LegalDocumentKind, readonly LegalDocument[]>> = {
  terms: [TERMS_2026_01],
  privacy: [PRIVACY_2026_01],
};
