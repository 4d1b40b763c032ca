import { useEffect, useState } from 'react';
import { copy } from '../copy.ts';
import { AccessGuard } from '../features/access-guard/access-guard.tsx';
import { getConfig } from '../shared/config/env.ts';
import { paths } from '../shared/config/paths.ts';
import { versionsLine } from '../shared/config/versions.ts';
import { AppShell } from '../shared/shell/app-shell.tsx';
import { registry } from '../shared/storage/registry.ts';
import { read, remove } from '../shared/storage/storage.ts';

/**
 * A landing page (outside /account: `/research` and every page of the initial-page table): the
 * application, the signed-in user, the token's ext claims and a logout link, behind the access guard.
 */
export default function LandingRoute() {
  const config = getConfig();
  // The first-login flag, written by the callback that onboarded the person: greeted once.
  const [firstLogin] = useState(() => read(registry.firstLogin) === true);
  useEffect(() => {
    if (firstLogin) remove(registry.firstLogin);
  }, [firstLogin]);
  return (
    <AccessGuard welcomeUnsubscribed>
      {({ session, claims }) => (
        <AppShell>
          <main className="page">
            <section className="card landing">
              <h1 id="research-title" className="card-title">
                {copy.research.title(config.appName, window.location.pathname.slice(1))}
              </h1>
              {firstLogin && <p data-testid="first-login">{copy.research.firstLogin(config.appName)}</p>}
              <p>
                {copy.research.signedInAs}{' '}
                {claims?.ext?.user?.name ? (
                  <strong data-testid="signed-in-name">{claims.ext.user.name} </strong>
                ) : null}
                <strong data-testid="signed-in-email">
                  {/* The token names the person in every mode (an m365 person has no identity session). */}
                  {claims?.ext?.user?.email ?? session.facts?.email}
                </strong>
              </p>
              <h2 className="muted">{copy.research.claims}</h2>
              <pre className="claims" data-testid="token-ext">
                {JSON.stringify(claims?.ext ?? {}, null, 2)}
              </pre>
              <div className="row wrap">
                <a
                  className="button secondary"
                  href={`${paths.settings}?from=${encodeURIComponent(config.application)}`}
                >
                  {copy.settings.link}
                </a>
                <a className="button secondary" href={paths.logout}>
                  {copy.research.logout}
                </a>
              </div>
              <p className="muted" data-testid="versions">
                {versionsLine()}
              </p>
            </section>
          </main>
        </AppShell>
      )}
    </AccessGuard>
  );
}
