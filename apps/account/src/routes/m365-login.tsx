import { createElement } from 'react';
import { lazyScreen, useLazyScreen } from '../shared/ui/lazy-screen.ts';
import { copy } from '../copy.ts';
import type { M365LoginSearch } from '../features/m365/use-m365-login.ts';
import { isTeamsSearch } from '../features/m365/use-m365-login.ts';
import { getConfig } from '../shared/config/env.ts';
import { Progress } from '../shared/ui/progress.tsx';
import RedirectToLogin from './redirect-to-login.tsx';

// MSAL loads only for the browser sign-in, teams-js only inside Teams: each is its own chunk.
const msalM365Login = lazyScreen(() => import('../features/m365/msal-login.tsx'));
const teamsM365Login = lazyScreen(() => import('../features/m365/teams-login.tsx'));

export default function M365LoginRoute({ search }: { search: M365LoginSearch }) {
  const m365 = getConfig().m365;
  const login = useLazyScreen(!m365 ? null : isTeamsSearch(search) ? teamsM365Login : msalM365Login);
  // An application without Microsoft 365 sign-in (Platform) has only the password login.
  if (!m365) return <RedirectToLogin />;
  if (!login) return <Progress label={copy.m365.signingIn} />;
  return createElement(login, { search, m365 });
}
