import { copy } from '../copy.ts';
import { isAuthenticated } from '../shared/session/is-authenticated.ts';
import { decideProfileEffect } from '../features/profile/decide-profile-effect.ts';
import { useCommand } from '../shared/react/use-command.ts';
import { useSession } from '../shared/session/use-session.ts';
import { getConfig } from '../shared/config/env.ts';
import { paths } from '../shared/config/paths.ts';
import { handleFlowError } from '../shared/identity-client/handle-flow-error.ts';
import { createSettingsFlow } from '../shared/identity-client/identity-client.ts';
import { navigate, redirectTo } from '../shared/navigation/history.ts';
import { tryDecodeJwtPayload } from '../shared/oauth2/jwt.ts';
import { readToken, removeToken } from '../shared/oauth2/token-lifecycle.ts';
import { registry } from '../shared/storage/registry.ts';
import { read } from '../shared/storage/storage.ts';
import { ErrorView } from '../shared/ui/error-view.tsx';
import { Progress } from '../shared/ui/progress.tsx';

/** Profile redirect screen: no visible UI, it only routes the user. */
export default function ProfileRoute({ search }: { search: { flow?: string; profileFlow?: string } }) {
  const config = getConfig();
  const session = useSession();
  const claims = tryDecodeJwtPayload(readToken()?.accessToken);
  const command = decideProfileEffect({
    flowId: search.flow ?? search.profileFlow ?? null,
    sessionState: session.state,
    sessionMethods: session.facts?.methods ?? [],
    authenticated: isAuthenticated({
      tokenAuthMode: claims?.ext?.user?.authenticationMode ?? null,
      session: session.facts,
      disableGitStep: config.disableGitStep,
      now: session.checkedAt,
    }),
    onboardingCodeSubmitted: read(registry.onboardingState)?.codeSubmitted === true,
    mfaSetupInitialised: read(registry.mfaSetupState)?.initialised === true,
  });

  useCommand(command, (command) => {
    switch (command.type) {
      case 'wait':
        return;
      case 'request-settings-flow':
        createSettingsFlow(config.identityUrl).then(
          () => navigate(paths.login, { replace: true }),
          (error: unknown) => {
            const toLogin = () => navigate(paths.login, { replace: true });
            handleFlowError(error, {
              redirect: redirectTo,
              rerender: toLogin,
              restart: toLogin,
              home: toLogin,
              unauthorized: toLogin,
              error: toLogin,
            });
          },
        );
        return;
      case 'go':
        navigate(command.to, { replace: true });
        return;
      case 'remove-token-and-login':
        removeToken();
        navigate(paths.login, { replace: true });
        return;
    }
  });

  if (session.state === 'error') {
    return (
      <ErrorView message={copy.errors.loadingSession(session.error ?? copy.errors.unknown)} mode="retry" />
    );
  }
  return <Progress label={copy.common.loading} />;
}
