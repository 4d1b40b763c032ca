import { useState } from 'react';
import { copy } from '../../copy.ts';
import type { AccountConfig } from '../../shared/config/env.ts';
import { paths } from '../../shared/config/paths.ts';
import { showToast } from '../../shared/errors/error-store.ts';
import { navigate, redirectTo } from '../../shared/navigation/history.ts';
import { unlinkGit } from '../../shared/users-client/users-client.ts';
import { decideUnlinkEffect } from './decide-unlink-effect.ts';
import type { SettingsNotice } from './settings-notice.ts';

/** Unlinking the source-code host account; `decideUnlinkEffect` says what follows. */
export function useGitUnlink(
  config: AccountConfig,
  isGitUser: boolean,
  setNotice: (n: SettingsNotice | null) => void,
) {
  const [unlinking, setUnlinking] = useState(false);
  /** null until an unlink changed it: the session's trait says. */
  const [gitConnected, setGitConnected] = useState<boolean | null>(null);

  const unlink = async () => {
    setUnlinking(true);
    setNotice(null);
    const context = {
      isGitUser,
      identityUrl: config.identityUrl,
      returnTo: new URL(paths.settings, window.location.origin).toString(),
    };
    const effect = await unlinkGit(config.usersUrl).then(
      () => decideUnlinkEffect({ ok: true }, context),
      (error: unknown) => decideUnlinkEffect({ ok: false, error }, context),
    );
    setUnlinking(false);
    switch (effect.type) {
      case 'unlinked':
        setGitConnected(false);
        if (effect.then === 'sign-in') navigate(paths.login, { replace: true });
        else setNotice({ section: 'linked', text: copy.settings.unlinked });
        return;
      case 'reauthenticate':
        redirectTo(effect.to);
        return;
      case 'error':
        showToast(copy.settings.settingsFlow(effect.message));
        return;
    }
  };

  return { unlinking, gitConnected, unlinkGit: unlink };
}
