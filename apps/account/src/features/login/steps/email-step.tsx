import type { FormEvent } from 'react';
import { copy } from '../../../copy.ts';
import { paths } from '../../../shared/config/paths.ts';
import { Card } from '../../../shared/ui/card.tsx';
import { DocumentLink } from '../../../shared/ui/document-link.tsx';
import { FormErrors } from '../../../shared/ui/form-errors.tsx';
import { TextField } from '../../../shared/ui/text-field.tsx';
import { useEmailInput } from '../../../shared/ui/use-email-input.ts';

export interface EmailStepProps {
  initialEmail?: string;
  accessEmail: string;
  busy?: boolean;
  /**
   * The page may still leave (the authorization is starting, or the app has not started yet): the
   * field takes no typing, so nothing typed is lost when it does.
   */
  inert?: boolean;
  onSubmit: (email: string) => void | Promise<void>;
  /** Passkey sign-in: offered (button, autofill), and its errors. */
  passkey?: { offer: { button: boolean; autofill: boolean }; signIn: () => void; formErrors: string[] };
}

/** Login step 1: title "Welcome", email prompt, Continue, access contact, terms notice. */
export function EmailStep({
  initialEmail = '',
  accessEmail,
  busy = false,
  inert = false,
  onSubmit,
  passkey,
}: EmailStepProps) {
  const input = useEmailInput(initialEmail);
  const email = input.email;

  function handleSubmit(event: FormEvent) {
    event.preventDefault();
    if (!input.validate()) {
      input.focus();
      return;
    }
    void onSubmit(email.trim());
  }

  return (
    <Card
      title={copy.login.email.title}
      after={
        <aside className="access-block" aria-label={copy.login.email.accessHeading}>
          <strong>{copy.login.email.accessHeading}</strong>{' '}
          <span>
            {copy.login.email.accessContact} <a href={`mailto:${accessEmail}`}>{accessEmail}</a>{' '}
            {copy.login.email.accessSuffix}
          </span>
        </aside>
      }
    >
      <p className="muted">{copy.login.email.prompt}</p>
      <form onSubmit={handleSubmit} noValidate aria-busy={busy}>
        <TextField
          {...input.field}
          autoComplete={passkey?.offer.autofill ? 'username webauthn' : 'username'}
          placeholder={copy.login.email.emailPlaceholder}
          disabled={inert}
        />
        <button type="submit" className="button" disabled={email.trim() === '' || busy || inert}>
          {copy.common.continue}
        </button>
      </form>
      {passkey?.offer.button && (
        <>
          <button
            type="button"
            className="button secondary"
            disabled={busy || inert}
            onClick={passkey.signIn}
          >
            {copy.passkeys.signIn}
          </button>
          <FormErrors messages={passkey.formErrors} />
        </>
      )}
      <p className="notice">
        {copy.login.email.termsNotice}{' '}
        <DocumentLink href={paths.terms}>{copy.login.email.termsOfServiceLink}</DocumentLink>{' '}
        {copy.login.email.termsAnd}{' '}
        <DocumentLink href={paths.privacy}>{copy.login.email.privacyLink}</DocumentLink>.
      </p>
    </Card>
  );
}
