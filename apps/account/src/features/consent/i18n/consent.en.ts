// The consent screen's English texts (a catalogue: src/i18n/catalogue.ts), loaded with the consent route only.

export const consentEn = {
  title: ['Allow {app} to sign you in?', 'app'],
  registeredByOrganisation: ['Registered by {organisation}.', 'organisation'],
  registeredByOperator: 'Registered by the platform operator.',
  asks: ['{app} asks for this access:', 'app'],
  signsInFor: ['You sign in for {organisation}.', 'organisation'],
  remembered: 'We remember your answer for this app until you revoke it in your account settings.',
  logo: ['{app} logo', 'app'],
  links: 'About this app',
  home: 'Website',
  policy: 'Privacy policy',
  terms: 'Terms of service',
  allow: 'Allow',
  deny: 'Deny',
} as const;
