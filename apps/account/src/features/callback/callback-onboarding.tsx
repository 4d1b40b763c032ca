import { copy } from '../../copy.ts';
import { TermsForm } from '../../shared/terms/terms-form.tsx';
import { AccountFooter } from '../../shared/ui/account-footer.tsx';
import { Card } from '../../shared/ui/card.tsx';
import { Stepper } from '../../shared/ui/stepper.tsx';
import type { TermsDocuments } from '../../shared/users-client/users-client.ts';
import type { SessionFacts } from '../../shared/session/session-facts.ts';
import { signedInBySso } from '../../shared/session/session-facts.ts';
import type { OnboardingStep } from './decide-callback-effect.ts';

/**
 * SSO (done for SSO users), Link to the source-code host
 * ("Signing up as", an authenticate button), Terms of Service ("Final Step", two checkboxes, footer).
 */
export function CallbackOnboarding({
  steps,
  facts,
  busy,
  formErrors,
  supportEmail,
  onAuthenticateGit,
  onAccept,
}: {
  steps: OnboardingStep[];
  facts: SessionFacts | null;
  busy: boolean;
  formErrors: string[];
  supportEmail: string;
  onAuthenticateGit: () => void;
  onAccept: (documents: TermsDocuments) => void | Promise<void>;
}) {
  const current = steps[0];
  const sso = facts !== null && signedInBySso(facts);
  const labels = [
    ...(sso ? [copy.callbackOnboarding.steps.sso] : []),
    ...steps.map((s) => copy.callbackOnboarding.steps[s]),
  ];
  const indicator =
    labels.length > 1 ? (
      <Stepper label={copy.onboarding.stepsLabel} steps={labels} current={sso ? 1 : 0} />
    ) : null;
  const footer = <AccountFooter supportEmail={supportEmail} />;
  if (current === 'git') {
    return (
      <Card title={copy.callbackOnboarding.gitTitle} footer={footer}>
        {indicator}
        <p className="muted">{copy.callbackOnboarding.gitPrompt}</p>
        <p>
          {copy.callbackOnboarding.signingUpAs} <strong>{facts?.email}</strong>
        </p>
        <button type="button" className="button" disabled={busy} onClick={onAuthenticateGit}>
          {copy.callbackOnboarding.authenticate}
        </button>
      </Card>
    );
  }
  return (
    <TermsForm
      title={copy.callbackOnboarding.finalStep}
      header={indicator}
      busy={busy}
      errors={formErrors}
      onAccept={onAccept}
      footer={footer}
    />
  );
}
