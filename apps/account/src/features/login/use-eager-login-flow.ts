import type { SessionState } from '../../shared/session/session-facts.ts';
import { useLoginFlow, type LoginFlowConfig } from './use-login-flow.ts';

interface EagerFlowInput {
  config: LoginFlowConfig;
  /** A flow id from the query (the identity service's browser redirects). */
  flowId: string | undefined;
  sessionState: SessionState;
  /** No effect command runs (the login effect decided `none`). */
  idle: boolean;
  storedChallenge: string | null;
  refresh: () => void;
}

/**
 * A flow id in the query or a pending challenge: load or create the flow now. With a session it
 * decides the step (rules 1 and 3); without one it proves the challenge is still valid, so a stale
 * challenge restarts the authorization before the user types.
 */
export function useEagerLoginFlow({
  config,
  flowId,
  sessionState,
  idle,
  storedChallenge,
  refresh,
}: EagerFlowInput) {
  const hasSession = sessionState === 'present' || sessionState === 'requires-mfa';
  const needsEagerFlow = idle && (Boolean(flowId) || storedChallenge !== null);
  const loginFlow = useLoginFlow({
    config,
    flowId,
    storedChallenge,
    eager: needsEagerFlow,
    aal2: sessionState === 'requires-mfa',
    refresh,
  });
  const stepNeedsFlow = needsEagerFlow && !loginFlow.flow && (Boolean(flowId) || hasSession);
  // Until the eager load has answered, the page may still leave for the authorization server (a stale
  // challenge or flow restarts the authorization): an address continued meanwhile waits for it.
  const checking = needsEagerFlow && !loginFlow.flow && !loginFlow.eagerFailed;
  return { loginFlow, stepNeedsFlow, checking };
}
