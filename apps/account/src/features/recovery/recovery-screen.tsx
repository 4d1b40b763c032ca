import type { FormEvent } from 'react';
import { copy } from '../../copy.ts';
import { initialPagePath, paths } from '../../shared/config/paths.ts';
import { MfaStep } from '../../shared/totp/mfa-step.tsx';
import { NewPasswordForm } from '../../shared/password/new-password-form.tsx';
import { Card } from '../../shared/ui/card.tsx';
import { CodeForm } from '../../shared/ui/code-form.tsx';
import { ErrorView } from '../../shared/ui/error-view.tsx';
import { FormErrors } from '../../shared/ui/form-errors.tsx';
import { Link } from '../../shared/ui/link.tsx';
import { Progress } from '../../shared/ui/progress.tsx';
import { TextField } from '../../shared/ui/text-field.tsx';
import { useEmailInput } from '../../shared/ui/use-email-input.ts';
import type { RecoverySearch } from './use-recovery.ts';
import { useRecovery } from './use-recovery.ts';

/** Password recovery: Email, Code (placeholder 000000), Password; or "already signed in". */
export function RecoveryScreen({ search }: { search: RecoverySearch }) {
  const r = useRecovery(search);
  if (r.pageError) return <ErrorView message={r.pageError} mode="retry" />;
  switch (r.step) {
    case 'loading':
      return <Progress label={copy.common.loading} />;
    case 'session-exists':
      return (
        <Card title={copy.forgotPassword.emailTitle}>
          <p>{copy.forgotPassword.sessionExists}</p>
          <p className="row">
            <Link href={initialPagePath(r.config.initialPage)}>{copy.forgotPassword.goToPlatform}</Link>
            <a href={paths.logout}>{copy.forgotPassword.logout}</a>
          </p>
        </Card>
      );
    case 'email':
      return (
        <EmailForm
          initial={r.email}
          busy={r.busy}
          errors={r.errors}
          onSubmit={r.submitEmail}
          onBack={r.backToLogin}
        />
      );
    case 'code':
      return <CodeStep busy={r.busy} errors={r.errors} onSubmit={r.submitCode} onBack={r.backToLogin} />;
    case 'mfa':
      return (
        <MfaStep
          supportEmail={r.config.supportEmail}
          busy={r.busy}
          errors={r.errors}
          onSubmit={r.submitTotp}
        />
      );
    case 'password':
      return (
        <Card title={copy.forgotPassword.passwordTitle}>
          <NewPasswordForm
            changing
            busy={r.busy}
            errors={r.errors}
            fieldErrors={r.fieldErrors}
            onSubmit={r.submitPassword}
          />
        </Card>
      );
  }
}

function EmailForm({
  initial,
  busy,
  errors,
  onSubmit,
  onBack,
}: {
  initial: string;
  busy: boolean;
  errors: string[];
  onSubmit: (email: string) => void;
  onBack: () => void;
}) {
  const input = useEmailInput(initial);
  const email = input.email;
  function handleSubmit(event: FormEvent) {
    event.preventDefault();
    if (input.validate()) onSubmit(email.trim());
  }
  return (
    <Card title={copy.forgotPassword.emailTitle}>
      <p className="muted">{copy.forgotPassword.emailPrompt}</p>
      <form onSubmit={handleSubmit} noValidate aria-busy={busy}>
        <TextField {...input.field} autoComplete="email" />
        <FormErrors messages={errors} />
        <button type="submit" className="button" disabled={email.trim() === '' || busy}>
          {copy.common.continue}
        </button>
      </form>
      <BackToLogin onBack={onBack} />
    </Card>
  );
}

function BackToLogin({ onBack }: { onBack: () => void }) {
  return (
    <p className="notice">
      <button type="button" className="icon-button" onClick={onBack}>
        {copy.forgotPassword.backToLogin}
      </button>
    </p>
  );
}

function CodeStep({
  busy,
  errors,
  onSubmit,
  onBack,
}: {
  busy: boolean;
  errors: string[];
  onSubmit: (code: string) => void;
  onBack: () => void;
}) {
  return (
    <Card title={copy.forgotPassword.codeTitle}>
      <p className="muted">{copy.forgotPassword.codePrompt}</p>
      <CodeForm
        label={copy.forgotPassword.codeLabel}
        placeholder={copy.forgotPassword.codePlaceholder}
        busy={busy}
        errors={errors}
        onSubmit={onSubmit}
      />
      <BackToLogin onBack={onBack} />
    </Card>
  );
}
