import type { ComponentType } from 'react';
import { createElement, useEffect } from 'react';
import * as z from 'zod/mini';
import { copy } from '../copy.ts';
import LoginRoute from '../routes/login.tsx';
import { getConfig } from '../shared/config/env.ts';
import {
  BASE,
  CONSOLE_PATHS,
  CONSOLE_SSO_TEST_CALLBACK,
  initialPagePath,
  paths,
  SETTINGS_SECTION_PATHS,
} from '../shared/config/paths.ts';
import { landingPaths } from '../shared/config/select-initial-page.ts';
import { decideRouteAccess } from '../shared/config/route-access.ts';
import { navigate, searchParams, useLocation } from '../shared/navigation/history.ts';
import { setScreenPreloader } from '../shared/navigation/preload.ts';
import { readToken } from '../shared/oauth2/token-lifecycle.ts';
import { useSession } from '../shared/session/use-session.ts';
import { Progress } from '../shared/ui/progress.tsx';
import { lazyScreen, useLazyScreen, type LazyScreen } from '../shared/ui/lazy-screen.ts';

// The route table (ADR 0006): path, zod-validated search params, component. The login route is in
// the entry chunk (it is the first screen); every other screen is a chunk loaded before it renders
// (lazy-screen.ts says why not React.lazy).

const str = z.optional(z.string());

interface RouteDef<S> {
  path: string;
  search: z.ZodMiniType<S>;
  component: ComponentType<{ search: S }> | LazyScreen;
}

function route<S>(def: RouteDef<S>): RouteDef<unknown> {
  return def as unknown as RouteDef<unknown>;
}

const none = z.object({});

/** A screen in its own chunk (`load`) at `path`, whose search parameters are `params` (each optional). */
function screen(path: string, params: readonly string[], load: Parameters<typeof lazyScreen>[0]) {
  return route({
    path,
    search: z.object(Object.fromEntries(params.map((name) => [name, str]))),
    component: lazyScreen(load),
  });
}

const adminScreen = lazyScreen(() => import('../routes/admin.tsx'));
const settingsScreen = lazyScreen(() => import('../routes/settings.tsx'));

const routes: RouteDef<unknown>[] = [
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
  screen(paths.consent, ['consent_challenge'], () => import('../routes/consent.tsx')),
  // Device sign-in (RFC 8628): a guarded page in the guest-route sense: it signs in through the
  // authorization server's login challenge, never by itself.
  screen(
    paths.device,
    ['user_code', 'device_challenge', 'login_challenge', 'consent_challenge', 'status', 'error'],
    () => import('../routes/device.tsx'),
  ),
  screen(
    paths.callback,
    ['code', 'state', 'error', 'error_description', 'scope'],
    () => import('../routes/callback.tsx'),
  ),
  screen(paths.logout, ['logout_challenge', 'post_logout'], () => import('../routes/logout.tsx')),
  screen(paths.error, ['id', 'mode'], () => import('../routes/error.tsx')),
  screen(paths.accessDenied, ['product'], () => import('../routes/access-denied.tsx')),
  // Terms of Service and Privacy Notice: guest-allowed pages (signed in or not, same page).
  screen(paths.terms, ['version'], () => import('../routes/terms.tsx')),
  screen(paths.privacy, ['version'], () => import('../routes/privacy.tsx')),
  // The SSO pop-up window of the Teams frame (guest-allowed).
  screen(paths.ssoPopup, ['provider', 'done', 'via'], () => import('../routes/sso-popup.tsx')),
  screen(paths.welcome, [], () => import('../routes/welcome.tsx')),
  // Screens of later issues: they send the user to login for now.
  screen(paths.onboarding, ['flow', 'code', 'profileFlow'], () => import('../routes/onboarding.tsx')),
  screen(paths.mfaSetup, ['profileFlow'], () => import('../routes/mfa-setup.tsx')),
  screen(paths.verification, ['flow', 'code'], () => import('../routes/verification.tsx')),
  screen(paths.registration, ['flow'], () => import('../routes/registration.tsx')),
  screen(paths.forgotPassword, ['flow', 'profileFlow'], () => import('../routes/forgot-password.tsx')),
  screen(paths.profile, ['flow', 'profileFlow'], () => import('../routes/profile.tsx')),
  // The account page: guarded (AccessGuard), in every application.
  // The whole page, and each of its sections on its own page (one chunk).
  ...[paths.settings, ...SETTINGS_SECTION_PATHS].map((path) =>
    route({ path, search: none, component: settingsScreen }),
  ),
  screen(paths.m365Login, ['token', 'autoContinue', 'isTeams'], () => import('../routes/m365-login.tsx')),
  screen(paths.m365Logout, ['after_logout'], () => import('../routes/m365-logout.tsx')),
  // The organisation admin console (issue 24): one lazy chunk for every /admin path.
  ...Object.values(CONSOLE_PATHS).map((path) =>
    route({ path, search: z.object({ id: str }), component: adminScreen }),
  ),
  // The console's Test sign-in callback (a popup): hands the provider's answer to its opener. Not
  // behind the guard: it signs nobody in, and the opener's console session completes the test.
  screen(
    CONSOLE_SSO_TEST_CALLBACK,
    ['code', 'state', 'error'],
    () => import('../routes/admin-sso-test-callback.tsx'),
  ),
];

/**
 * Every fixed path the router serves: the route table's, and `/research`, the landing page's own
 * (the configured initial pages are the same landing screen under other paths). The route-access
 * table lists each of them (`router.test.ts`).
 */
export const SERVED_PATHS: readonly string[] = [...routes.map((r) => r.path), paths.research];

function normalise(pathname: string): string {
  return pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
}

/** `/research` and every page of the configured initial-page table: one landing page each. */
const landing = route({
  path: '',
  search: none,
  component: lazyScreen(() => import('../routes/landing.tsx')),
});

function isLandingPath(path: string): boolean {
  return path === paths.research || landingPaths(getConfig().initialPage).includes(path);
}

function matchRoute(pathname: string): RouteDef<unknown> | null {
  const path = normalise(pathname);
  return routes.find((r) => r.path === path) ?? (isLandingPath(path) ? landing : null);
}

function parseSearch<S>(def: RouteDef<S>, search: string): S {
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
  return <Screen def={def} path={path} search={location.search} />;
}

/**
 * Applies the route-access table (`decideRouteAccess`) before the screen: a stored token counts as
 * signed in at once; otherwise a guarded route waits for the session.
 */
function Screen(props: { def: RouteDef<unknown>; path: string; search: string }) {
  const search = searchParams(props.search);
  const decision = decideRouteAccess({ path: props.path, search, signedIn: readToken() ? true : null });
  if (decision.type === 'check-session') return <SessionGate {...props} query={search} />;
  if (decision.type === 'redirect') return <Redirect to={decision.to} />;
  return <RouteScreen {...props} />;
}

function SessionGate(props: {
  def: RouteDef<unknown>;
  path: string;
  search: string;
  query: Record<string, string>;
}) {
  const session = useSession();
  const signedIn = session.state === 'loading' ? null : session.state !== 'none';
  const decision = decideRouteAccess({ path: props.path, search: props.query, signedIn });
  if (decision.type === 'check-session') return <Progress label={copy.common.loading} />;
  if (decision.type === 'redirect') return <Redirect to={decision.to} />;
  return <RouteScreen def={props.def} path={props.path} search={props.search} />;
}

function RouteScreen({ def, path, search }: { def: RouteDef<unknown>; path: string; search: string }) {
  const component = useLazyScreen(def.component);
  if (!component) return <Progress label={copy.common.loading} />;
  // createElement: the component is one of the route table's, fixed per route (not made in render).
  return createElement(component, { key: def.path || path, search: parseSearch(def, search) });
}

// Screens start loading the next screen through shared/navigation/preload.ts (no-op for a loaded one).
setScreenPreloader((pathname) => {
  const component = matchRoute(pathname)?.component;
  if (component && 'load' in component) void component.load().catch(() => undefined);
});
