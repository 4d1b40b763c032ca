import { errorTexts, nodeMessages } from '../../shared/identity-client/nodes.ts';
import type { RegistrationFlow } from '../../shared/identity-client/types.ts';

// The registration screen's view, as a pure function (issue 25, self sign-up).

export type RegistrationView =
  | { kind: 'loading' }
  /** Registration is off for everyone (self_service_flow_disabled): say so, point back to sign-in. */
  | { kind: 'closed' }
  | {
      kind: 'form';
      fieldErrors: { email: string[]; first: string[]; last: string[]; password: string[] };
      formErrors: string[];
    };

export function selectRegistrationView(input: {
  closed: boolean;
  flow: RegistrationFlow | null;
}): RegistrationView {
  if (input.closed) return { kind: 'closed' };
  const { flow } = input;
  if (!flow) return { kind: 'loading' };
  const field = (name: string) => errorTexts(nodeMessages(flow, name));
  return {
    kind: 'form',
    fieldErrors: {
      email: field('traits.email'),
      first: field('traits.name.first'),
      last: field('traits.name.last'),
      password: field('password'),
    },
    formErrors: errorTexts(flow.ui.messages ?? []),
  };
}

/**
 * Where a successful registration goes: the verification screen of the flow the identity service
 * started (`continue_with: show_verification_ui`, its code already mailed), else the login screen.
 */
export function selectAfterRegistration(
  answer: unknown,
  paths: { verification: string; login: string },
): string {
  const list = (answer as { continue_with?: unknown } | null)?.continue_with;
  const next = Array.isArray(list)
    ? (list as { action?: unknown; flow?: { id?: unknown } }[]).find(
        (c) => c.action === 'show_verification_ui',
      )
    : undefined;
  const id = next?.flow?.id;
  return typeof id === 'string' && id ? `${paths.verification}?flow=${encodeURIComponent(id)}` : paths.login;
}
