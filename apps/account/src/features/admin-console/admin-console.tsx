import type { ReactNode } from 'react';
import { useEffect } from 'react';
import { getConfig } from '../../shared/config/env.ts';
import { CONSOLE_PATHS } from '../../shared/config/paths.ts';
import { navigate } from '../../shared/navigation/history.ts';
import { AppShell, type ShellNav } from '../../shared/shell/app-shell.tsx';
import { Progress } from '../../shared/ui/progress.tsx';
import { ApiClientsSection } from './api-clients-section.tsx';
import { consoleApi } from './console-client.ts';
import { consoleCopy as t } from './copy.ts';
import { EventsSection } from './events-section.tsx';
import { InvitationsSection } from './invitations-section.tsx';
import { MemberSection } from './member-section.tsx';
import { MembersSection } from './members-section.tsx';
import { ScimSection } from './scim-section.tsx';
import { SignUpSection } from './signup-section.tsx';
import { SsoSection } from './sso-section.tsx';
import { SubscriptionSection } from './subscription-section.tsx';
import { NetworksSection } from './networks-section.tsx';
import { selectConsoleView, type MeState } from './select-console-view.ts';
import { useLoad } from './use-load.ts';
import { WebhooksSection } from './webhooks/webhooks-section.tsx';
import './console.css';

/**
 * The organisation admin console (admin application only): the section of `path` when the
 * signed-in person's role covers it (from `/console/me`), else `denied` (the spec's Access Denied).
 */
export function AdminConsole(props: { path: string; memberId?: string; denied: ReactNode }) {
  // Outside the admin application the console asks the user service nothing.
  const view = selectConsoleView({
    application: getConfig().application,
    path: props.path,
    me: { state: 'loading' },
  });
  return view.type === 'denied' ? <>{props.denied}</> : <ConsoleScreens {...props} />;
}

function ConsoleScreens({ path, memberId, denied }: { path: string; memberId?: string; denied: ReactNode }) {
  const config = getConfig();
  const [me] = useLoad('me', () => consoleApi.me());
  const meState: MeState = me.state === 'ready' ? { state: 'ready', me: me.value } : me;
  const view = selectConsoleView({ application: config.application, path, me: meState });
  const redirectTo = view.type === 'redirect' ? view.to : null;
  useEffect(() => {
    if (redirectTo) navigate(redirectTo, { replace: true });
  }, [redirectTo]);
  useEffect(() => {
    document.title = t.title;
  }, []);

  const nav: ShellNav | undefined =
    view.type === 'section'
      ? {
          label: t.nav,
          items: view.nav.map((s) => ({
            href: CONSOLE_PATHS[s],
            label: t.sections[s as keyof typeof t.sections],
            current: s === view.section || (s === 'members' && view.section === 'member'),
          })),
        }
      : undefined;
  return (
    <AppShell nav={nav}>
      <ConsoleContent view={view} memberId={memberId} denied={denied} />
    </AppShell>
  );
}

function ConsoleContent({
  view,
  memberId,
  denied,
}: {
  view: ReturnType<typeof selectConsoleView>;
  memberId?: string;
  denied: ReactNode;
}) {
  switch (view.type) {
    case 'denied':
      return <>{denied}</>;
    case 'loading':
    case 'redirect':
      return <Progress label={t.loading} />;
    case 'error':
      return (
        <main className="page">
          <p role="alert">{t.loadFailed(view.message)}</p>
        </main>
      );
    case 'section':
      return (
        <main className="console-page">
          <h1 className="console-title">{t.title}</h1>
          {view.section === 'members' ? <MembersSection me={view.me} /> : null}
          {view.section === 'member' ? (
            memberId ? (
              <MemberSection me={view.me} userId={memberId} />
            ) : (
              <p role="alert">{t.empty.members}</p>
            )
          ) : null}
          {view.section === 'invitations' ? <InvitationsSection me={view.me} /> : null}
          {view.section === 'events' ? <EventsSection me={view.me} /> : null}
          {view.section === 'apiClients' ? <ApiClientsSection me={view.me} /> : null}
          {view.section === 'subscription' ? <SubscriptionSection me={view.me} /> : null}
          {view.section === 'networks' ? <NetworksSection me={view.me} /> : null}
          {view.section === 'sso' ? <SsoSection me={view.me} /> : null}
          {view.section === 'scim' ? <ScimSection me={view.me} /> : null}
          {view.section === 'signup' ? <SignUpSection me={view.me} /> : null}
          {view.section === 'webhooks' ? <WebhooksSection me={view.me} /> : null}
        </main>
      );
  }
}
