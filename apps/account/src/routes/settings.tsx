import { AccessGuard, type GuardedProps } from '../features/access-guard/access-guard.tsx';
import { settingsSectionOfPath } from '../features/settings/select-settings-nav.ts';
import { selectSettingsSections } from '../features/settings/select-settings-sections.ts';
import { SettingsScreen } from '../features/settings/settings-screen.tsx';
import { useM365Account } from '../features/settings/use-m365-account.ts';
import { useSettings } from '../features/settings/use-settings.ts';
import { getConfig } from '../shared/config/env.ts';
import { useLocation } from '../shared/navigation/history.ts';
import { useNow } from '../shared/react/use-now.ts';

function Settings({ session, claims }: GuardedProps) {
  const config = getConfig();
  const { now } = useNow();
  const location = useLocation();
  const facts = session.facts;
  const sections = selectSettingsSections({
    tokenMode: claims?.ext?.user?.authenticationMode ?? null,
    hasSession: facts !== null && facts !== undefined,
    sessionMethods: facts?.methods ?? [],
    isGitUser: facts?.isGitUser === true,
  });
  const model = useSettings(config, sections.kind !== 'm365', facts?.isGitUser === true);
  const m365 = useM365Account(config, sections.kind === 'm365');
  return (
    <SettingsScreen
      model={model}
      sections={sections}
      m365={m365}
      gitConnected={facts?.gitProviderConnected === true}
      now={new Date(now).toISOString()}
      only={settingsSectionOfPath(location.pathname)}
    />
  );
}

/**
 * `/account/settings`: where each person manages their own sign-in. A guarded page in every
 * application (signed-in people only, whatever the application's products or scope groups).
 */
export default function SettingsRoute() {
  return (
    <AccessGuard requiredProducts={[]} requiredScopeGroups={[]}>
      {(props) => <Settings {...props} />}
    </AccessGuard>
  );
}
