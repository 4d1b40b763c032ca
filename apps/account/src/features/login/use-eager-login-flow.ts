import type { AccountConfig } from '../../shared/config/env.ts';
import type { SessionState } from '../../shared/session/session-facts.ts';
import type { LoginCommand } from './decide-login-effect.ts';
import { useLoginFlow } from './use-login-flow.ts';

interface EagerFlowInput {
  config: AccountConfig;
  search: { flow?: string };
  sessionState: SessionState;
  command: LoginCommand;
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
  search,
  sessionState,
  command,
  storedChallenge,
  refresh,
}: EagerFlowInput) {
  const hasSession = sessionState === 'present' || sessionState === 'requires-mfa';
  const needsEagerFlow = command.type === 'none' && (Boolean(search.flow) || storedChallenge !== null);
  const loginFlow = useLoginFlow({
    config,
    flowId: search.flow,
    storedChallenge,
    eager: needsEagerFlow,
    aal2: sessionState === 'requires-mfa',
    refresh,
  });
  const stepNeedsFlow = needsEagerFlow && !loginFlow.flow && (Boolean(search.flow) || hasSession);
  return { loginFlow, stepNeedsFlow };
}
