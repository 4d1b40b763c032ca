// The consent screen's texts (loaded with the consent route only, never on the login route).

export const consentCopy = {
  title: (app: string) => `Allow ${app} to sign you in?`,
  registeredByOrganisation: (organisation: string) => `Registered by ${organisation}.`,
  registeredByOperator: 'Registered by the platform operator.',
  asks: (app: string) => `${app} asks for this access:`,
  signsInFor: (organisation: string) => `You sign in for ${organisation}.`,
  remembered: 'We remember your answer for this app until you revoke it in your account settings.',
  logo: (app: string) => `${app} logo`,
  links: 'About this app',
  home: 'Website',
  policy: 'Privacy policy',
  terms: 'Terms of service',
  allow: 'Allow',
  deny: 'Deny',
};
