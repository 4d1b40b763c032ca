// Every path of the app, one place (account routes under /account).

export const BASE = '/account';

export const paths = {
  onboarding: `${BASE}/onboarding`,
  mfaSetup: `${BASE}/mfa-setup`,
  verification: `${BASE}/verification`,
  login: `${BASE}/login`,
  m365Login: `${BASE}/m365-login`,
  forgotPassword: `${BASE}/forgot-password`,
  profile: `${BASE}/profile`,
  consent: `${BASE}/consent`,
  callback: `${BASE}/callback`,
  logout: `${BASE}/logout`,
  m365Logout: `${BASE}/m365-logout`,
  error: `${BASE}/error`,
  accessDenied: `${BASE}/access-denied`,
  research: '/research',
} as const;

export type AppPath = (typeof paths)[keyof typeof paths];

/** The initial page after sign-in (default "research"). */
export function initialPagePath(_initialPage: 'research'): string {
  return paths.research;
}

export function withQuery(path: string, query: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, v);
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}
