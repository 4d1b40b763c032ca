import { describe, expect, it } from 'vitest';
import { paths } from './paths.ts';
import type { RouteAccessDecision, RouteAccessInput } from './route-access.ts';
import { decideRouteAccess, ROUTE_ACCESS } from './route-access.ts';

const render: RouteAccessDecision = { type: 'render' };
const toLogin: RouteAccessDecision = { type: 'redirect', to: '/account/login' };
const check: RouteAccessDecision = { type: 'check-session' };

describe('route access: one table for guest-allowed and guarded routes', () => {
  it('lists the guest-allowed account pages, the documents, Access Denied, device, registration, the SSO pop-up and the Test sign-in pop-up of the console as guest-allowed, and nothing else', () => {
    const guests = Object.entries(ROUTE_ACCESS)
      .filter(([, a]) => a.guests === true)
      .map(([p]) => p)
      .sort();
    expect(guests).toEqual(
      [
        '/account/onboarding',
        '/account/mfa-setup',
        '/account/verification',
        '/account/login',
        '/account/m365-login',
        '/account/forgot-password',
        '/account/terms',
        '/account/privacy',
        '/account/access-denied',
        '/account/device',
        '/account/registration',
        '/account/sso-popup',
        '/admin/sso/test-callback',
      ].sort(),
    );
  });

  it('guards the other account pages, settings and every page of the admin console', () => {
    const guarded = Object.entries(ROUTE_ACCESS)
      .filter(([, a]) => a.guests === false)
      .map(([p]) => p)
      .sort();
    expect(guarded).toEqual(
      [
        '/account/profile',
        '/account/consent',
        '/account/callback',
        '/account/logout',
        '/account/m365-logout',
        '/account/error',
        '/account/settings',
        '/account/settings/profile',
        '/account/settings/language',
        '/account/settings/password',
        '/account/settings/two-factor',
        '/account/settings/passkeys',
        '/account/settings/sessions',
        '/account/settings/connected-apps',
        '/account/settings/linked-accounts',
        '/admin',
        '/admin/members',
        '/admin/member',
        '/admin/invitations',
        '/admin/events',
        '/admin/api-clients',
        '/admin/subscription',
        '/admin/networks',
        '/admin/sso',
        '/admin/scim',
        '/admin/signup',
        '/admin/webhooks',
      ].sort(),
    );
  });

  it('leaves the platform pages after sign-in (research, welcome) to their own access guard', () => {
    const screen = Object.entries(ROUTE_ACCESS)
      .filter(([, a]) => a.guests === 'screen')
      .map(([p]) => p);
    expect(screen.sort()).toEqual(['/research', '/welcome']);
  });

  it('has no entry for the former console path under /account', () => {
    expect(ROUTE_ACCESS['/account/admin']).toBeUndefined();
  });

  const cases: [string, RouteAccessInput, RouteAccessDecision][] = [
    ['a guest on login', { path: paths.login, search: {}, signedIn: false }, render],
    ['a guest on forgot-password', { path: paths.forgotPassword, search: {}, signedIn: false }, render],
    ['a guest on the terms', { path: paths.terms, search: {}, signedIn: false }, render],
    ['a guest on Access Denied', { path: paths.accessDenied, search: {}, signedIn: false }, render],
    ['guest-allowed needs no session answer', { path: paths.onboarding, search: {}, signedIn: null }, render],
    ['a guarded route waits for the session', { path: paths.m365Logout, search: {}, signedIn: null }, check],
    ['a signed-in visitor on a guarded route', { path: paths.consent, search: {}, signedIn: true }, render],
    [
      'a guest on settings goes to login',
      { path: '/account/settings', search: {}, signedIn: false },
      toLogin,
    ],
    ['a guest on the admin console goes to login', { path: '/admin', search: {}, signedIn: false }, toLogin],
    [
      'a guest on a console section goes to login',
      { path: '/admin/members', search: {}, signedIn: false },
      toLogin,
    ],
    [
      'the Test sign-in pop-up of the console renders for anyone (it signs nobody in)',
      { path: '/admin/sso/test-callback', search: { code: 'c', state: 's' }, signedIn: false },
      render,
    ],
    [
      'a guest on device types the code first',
      { path: '/account/device', search: {}, signedIn: false },
      render,
    ],
    [
      'a guest on m365-logout goes to login',
      { path: paths.m365Logout, search: {}, signedIn: false },
      toLogin,
    ],
    [
      'a guest on a bare error page goes to login',
      { path: paths.error, search: {}, signedIn: false },
      toLogin,
    ],
    [
      'a guest on profile goes to login with the flow as profileFlow',
      { path: paths.profile, search: { flow: 'f1' }, signedIn: false },
      { type: 'redirect', to: '/account/login?profileFlow=f1' },
    ],
    [
      'profileFlow wins over flow',
      { path: paths.profile, search: { flow: 'f1', profileFlow: 'f2' }, signedIn: false },
      { type: 'redirect', to: '/account/login?profileFlow=f2' },
    ],
    [
      "the authorization server's answer reaches the callback signed out",
      { path: paths.callback, search: { code: 'ory_ac_1', state: 's' }, signedIn: false },
      render,
    ],
    [
      "the authorization server's error reaches the callback",
      { path: paths.callback, search: { error: 'access_denied' }, signedIn: null },
      render,
    ],
    [
      'a bare callback for a guest goes to login',
      { path: paths.callback, search: {}, signedIn: false },
      toLogin,
    ],
    [
      "the authorization server's logout request reaches logout (nobody is signed in by then)",
      { path: paths.logout, search: { logout_challenge: 'l1' }, signedIn: false },
      render,
    ],
    [
      'the post-logout return reaches logout',
      { path: paths.logout, search: { post_logout: '' }, signedIn: false },
      render,
    ],
    ['a guest on a bare logout goes to login', { path: paths.logout, search: {}, signedIn: false }, toLogin],
    [
      'the Microsoft half of a logout reaches m365-logout (nobody is signed in by then)',
      { path: paths.m365Logout, search: { after_logout: '1' }, signedIn: false },
      render,
    ],
    [
      'a consent request reaches consent (its screen retries the login once)',
      { path: paths.consent, search: { consent_challenge: 'c1' }, signedIn: false },
      render,
    ],
    [
      "an identity flow's error page reaches anyone",
      { path: paths.error, search: { id: 'e1' }, signedIn: false },
      render,
    ],
    [
      'a guest on the landing page: its own access guard decides',
      { path: '/research', search: {}, signedIn: false },
      render,
    ],
    [
      'a configured initial page (not listed) renders: the landing screen guards itself',
      { path: '/dashboard', search: {}, signedIn: false },
      render,
    ],
  ];
  it.each(cases)('%s', (_name, input, expected) => {
    expect(decideRouteAccess(input)).toEqual(expected);
  });
});
