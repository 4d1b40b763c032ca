import type { ComponentType } from 'react';
import { lazy, Suspense, useEffect } from 'react';
import * as z from 'zod/mini';
import { copy } from '../copy.ts';
import LoginRoute from '../routes/login.tsx';
import { getConfig } from '../shared/config/env.ts';
import { BASE, initialPagePath, paths } from '../shared/config/paths.ts';
import { landingPaths } from '../shared/config/select-initial-page.ts';
import { navigate, searchParams, useLocation } from '../shared/navigation/history.ts';
import { Progress } from '../shared/ui/progress.tsx';

// The route table (ADR 0006): path, zod-validated search params, component. The login route is in
// the entry chunk (it is the first screen); every other screen is a lazy chunk.

const str = z.optional(z.string());

interface RouteDef<S> {
  path: string;
  search: z.ZodMiniType<S>;
  component: ComponentType<{ search: S }>;
}

function route<S>(def: RouteDef<S>): RouteDef<unknown> {
  return def as unknown as RouteDef<unknown>;
}

const none = z.object({});

export const routes: RouteDef<unknown>[] = [
  route({
    path: paths.login,
    search: z.object({
      flow: str,
      profileFlow: str,
      login_challenge: str,
      post_logout: str,
      code: str,
      error: str,
      error_description: str,
      consent_challenge: str,
      aal: str,
    }),
    component: LoginRoute,
  }),
  route({
    path: paths.consent,
    search: z.object({ consent_challenge: str }),
    component: lazy(() => import('../routes/consent.tsx')),
  }),
  route({
    path: paths.callback,
    search: z.object({ code: str, state: str, error: str, error_description: str, scope: str }),
    component: lazy(() => import('../routes/callback.tsx')),
  }),
  route({
    path: paths.logout,
    search: z.object({ logout_challenge: str, post_logout: str }),
    component: lazy(() => import('../routes/logout.tsx')),
  }),
  route({
    path: paths.error,
    search: z.object({ id: str, mode: str }),
    component: lazy(() => import('../routes/error.tsx')),
  }),
  route({
    path: paths.accessDenied,
    search: z.object({ product: str }),
    component: lazy(() => import('../routes/access-denied.tsx')),
  }),
  route({ path: paths.welcome, search: none, component: lazy(() => import('../routes/welcome.tsx')) }),
  // Screens of later issues: they send the user to login for now.
  route({
    path: paths.onboarding,
    search: z.object({ flow: str, code: str, profileFlow: str }),
    component: lazy(() => import('../routes/onboarding.tsx')),
  }),
  route({
    path: paths.mfaSetup,
    search: z.object({ profileFlow: str }),
    component: lazy(() => import('../routes/mfa-setup.tsx')),
  }),
  route({
    path: paths.verification,
    search: z.object({ flow: str, code: str }),
    component: lazy(() => import('../routes/verification.tsx')),
  }),
  route({
    path: paths.forgotPassword,
    search: z.object({ flow: str, profileFlow: str }),
    component: lazy(() => import('../routes/forgot-password.tsx')),
  }),
  route({
    path: paths.profile,
    search: z.object({ flow: str, profileFlow: str }),
    component: lazy(() => import('../routes/profile.tsx')),
  }),
  route({
    path: paths.m365Login,
    search: z.object({ token: str, autoContinue: str, isTeams: str }),
    component: lazy(() => import('../routes/m365-login.tsx')),
  }),
  route({ path: paths.m365Logout, search: none, component: lazy(() => import('../routes/m365-logout.tsx')) }),
];

function normalise(pathname: string): string {
  return pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
}

/** `/research` and every page of the configured initial-page table: one landing page each. */
const landing = route({ path: '', search: none, component: lazy(() => import('../routes/landing.tsx')) });

function isLandingPath(path: string): boolean {
  return path === paths.research || landingPaths(getConfig().initialPage).includes(path);
}

export function matchRoute(pathname: string): RouteDef<unknown> | null {
  const path = normalise(pathname);
  return routes.find((r) => r.path === path) ?? (isLandingPath(path) ? landing : null);
}

export function parseSearch<S>(def: RouteDef<S>, search: string): S {
  const result = def.search.safeParse(searchParams(search));
  return result.success ? result.data : ({} as S);
}

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}

export function Router() {
  const location = useLocation();
  const path = normalise(location.pathname);
  const def = matchRoute(path);
  if (!def) {
    // /account → login; everything else → the initial page (which guards itself).
    return (
      <Redirect
        to={path === BASE ? paths.login + location.search : initialPagePath(getConfig().initialPage)}
      />
    );
  }
  const Component = def.component;
  return (
    <Suspense fallback={<Progress label={copy.common.loading} />}>
      <Component key={def.path || path} search={parseSearch(def, location.search)} />
    </Suspense>
  );
}
