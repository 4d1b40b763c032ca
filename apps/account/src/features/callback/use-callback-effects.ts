import { useRef } from 'react';
import type { AccountConfig } from '../../shared/config/env.ts';
import { initialPagePath, paths } from '../../shared/config/paths.ts';
import { showToast } from '../../shared/errors/error-store.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import { navigate } from '../../shared/navigation/history.ts';
import { startAuthorizationWhenFree } from '../../shared/oauth2/start-authorization.ts';
import { useCommand } from '../../shared/react/use-command.ts';
import type { SessionFacts } from '../../shared/session/session-facts.ts';
import { registry } from '../../shared/storage/registry.ts';
import { remove, write } from '../../shared/storage/storage.ts';
import { completeGitAuth } from '../../shared/users-client/users-client.ts';
import { clearAfterExchange, exchangeUnderLock } from './callback-exchange.ts';
import type { AfterExchangeCommand, CallbackCommand } from './decide-callback-effect.ts';

export interface CallbackEffectsContext {
  config: AccountConfig;
  facts: SessionFacts | null;
  /** The PKCE verifier of the authorization this answer belongs to ('' when none is kept). */
  codeVerifier: string;
  reloadSession: () => Promise<unknown>;
  afterExchange: (facts: SessionFacts | null, now: number) => AfterExchangeCommand;
  setError: (message: string) => void;
  setOnboarding: (showing: boolean) => void;
}

/** Runs the callback's effect commands (`decideCallbackEffect`); async results are dropped once it changed. */
export function useCallbackEffects(command: CallbackCommand, ctx: CallbackEffectsContext): void {
  /** A host code is single-use: complete it once, however often the effect runs. */
  const completedGitCode = useRef<string | null>(null);
  useCommand(command, (command) => {
    let cancelled = false;
    const finish = (facts: SessionFacts | null) => {
      if (ctx.afterExchange(facts, Date.now()).type === 'onboarding') {
        // The first-login flag: this sign-in onboards the person (read by the landing page).
        write(registry.firstLogin, true);
        ctx.setOnboarding(true);
      } else navigate(initialPagePath(ctx.config.initialPage), { replace: true });
    };
    switch (command.type) {
      case 'wait':
        break;
      case 'error':
        ctx.setError(command.message);
        break;
      case 'login-2fa-reset':
        // The challenge was used by this login; the login screen renders the 2FA reset for the session.
        remove(registry.loginChallenge);
        navigate(paths.login, { replace: true });
        break;
      case 'authorize':
        void startAuthorizationWhenFree(ctx.config);
        break;
      case 'go-initial-page':
        finish(ctx.facts);
        break;
      case 'exchange':
        exchangeUnderLock(command.code, ctx.codeVerifier).then(
          () => {
            clearAfterExchange();
            if (!cancelled) finish(ctx.facts);
          },
          (e: unknown) => void (!cancelled && ctx.setError(getErrorMessage(e))),
        );
        break;
      case 'git-failed':
        showToast(command.message);
        navigate(paths.callback, { replace: true });
        break;
      case 'git-complete':
        // Back from the source-code host: complete the link, then the remaining steps. On failure the
        // message is shown and the flow restarts at the link step.
        if (completedGitCode.current === command.code) break;
        completedGitCode.current = command.code;
        completeGitAuth(ctx.config.usersUrl, { code: command.code, state: command.state })
          .catch((e: unknown) => showToast(getErrorMessage(e)))
          .then(() => ctx.reloadSession())
          .then(() => void (!cancelled && navigate(paths.callback, { replace: true })));
        break;
    }
    return () => {
      cancelled = true;
    };
  });
}
