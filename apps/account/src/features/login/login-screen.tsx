import { createElement, useEffect } from 'react';
import { lazyScreen, useLazyScreen } from '../../shared/ui/lazy-screen.ts';
import { copy } from '../../copy.ts';
import { ErrorView } from '../../shared/ui/error-view.tsx';
import { Progress } from '../../shared/ui/progress.tsx';
import { whenIdle } from '../../shared/scheduling/yield-to-browser.ts';
import { EmailStep } from './steps/email-step.tsx';
import type { LoginSearch } from './use-login.ts';
import { useLogin } from './use-login.ts';

/** The steps after the Email step: their own chunk, loaded once the screen has started. */
const laterSteps = lazyScreen(() => import('./later-steps.tsx'));

export function LoginScreen({ search }: { search: LoginSearch }) {
  const login = useLogin(search);
  const { view } = login;
  const later = useLazyScreen(view.kind === 'step' && view.step !== 'email' ? laterSteps : null);
  // The Email step is on screen: fetch what the next step needs while the person types, once the
  // start's own work is done (a step that needs it sooner loads it itself, above).
  useEffect(() => whenIdle(() => void laterSteps.load().catch(() => undefined)), []);
  if (view.kind === 'error') return <ErrorView message={view.message} mode={view.mode} />;
  if (view.kind === 'progress') return <Progress label={copy.progress.signingIn} />;
  if (view.step === 'email') {
    return (
      <EmailStep
        initialEmail={login.typedEmail}
        accessEmail={login.config.accessEmail}
        busy={login.busy}
        inert={view.inert === true}
        onSubmit={login.submitEmail}
        passkey={login.passkey}
      />
    );
  }
  if (!later) return <Progress label={copy.progress.signingIn} />;
  // createElement: the chunk's one component, the same on every render (not made in render).
  return createElement(later, { login, step: view.step });
}
