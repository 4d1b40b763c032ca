import type { FormEvent } from 'react';
import { useState } from 'react';
import { copy } from '../../../copy.ts';
import { paths } from '../../../shared/config/paths.ts';
import { Card } from '../../../shared/ui/card.tsx';
import { FormErrors } from '../../../shared/ui/form-errors.tsx';
import { Link } from '../../../shared/ui/link.tsx';
import { TextField } from '../../../shared/ui/text-field.tsx';

export interface PasswordStepProps {
  email: string;
  busy?: boolean;
  errors?: string[];
  fieldErrors?: string[];
  /** Password confirmation reuses this form with its own title and text. */
  variant?: 'password' | 'confirmation';
  onBack?: () => void;
  onSubmit: (password: string) => void | Promise<void>;
  /** The address's organisation has self sign-up open: offer "Create an account" (issue 25). */
  signUp?: boolean;
  /** Password confirmation of a person with a passkey: "Use a passkey" instead of the password. */
  passkey?: { signIn: () => void; formErrors: string[] };
}

/** Login step 2: "Enter password", "Logging in as" the email, back arrow, Forgot Password, Continue. */
export function PasswordStep({
  email,
  busy = false,
  errors = [],
  fieldErrors = [],
  variant = 'password',
  onBack,
  onSubmit,
  signUp = false,
  passkey,
}: PasswordStepProps) {
  const [password, setPassword] = useState('');
  const title =
    variant === 'confirmation' ? copy.login.passwordConfirmation.title : copy.login.password.title;

  function handleSubmit(event: FormEvent) {
    event.preventDefault();
    if (!password || busy) return;
    void onSubmit(password);
  }

  return (
    <Card
      title={title}
      leading={
        onBack ? (
          <button
            type="button"
            className="icon-button"
            aria-label={copy.login.password.back}
            onClick={onBack}
          >
            <span aria-hidden="true">←</span>
          </button>
        ) : null
      }
    >
      {variant === 'confirmation' ? <p className="muted">{copy.login.passwordConfirmation.text}</p> : null}
      <p>
        {copy.login.password.loggingInAs} <strong>{email}</strong>
      </p>
      <form onSubmit={handleSubmit} aria-busy={busy}>
        {/* The identifier, for password managers. */}
        <input type="email" name="identifier" autoComplete="username" value={email} readOnly hidden />
        <TextField
          label={copy.login.password.passwordLabel}
          type="password"
          name="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          errors={fieldErrors}
        />
        <FormErrors messages={errors} />
        <div className="row">
          <Link href={paths.forgotPassword}>{copy.login.password.forgotPassword}</Link>
        </div>
        {signUp ? (
          <p>
            {copy.registration.signUpPrompt}{' '}
            <Link href={paths.registration}>{copy.registration.signUpLink}</Link>
          </p>
        ) : null}
        <button type="submit" className="button" disabled={password === '' || busy}>
          {copy.common.continue}
        </button>
      </form>
      {passkey && (
        <>
          <button type="button" className="button secondary" disabled={busy} onClick={passkey.signIn}>
            {copy.passkeys.confirm}
          </button>
          <FormErrors messages={passkey.formErrors} />
        </>
      )}
    </Card>
  );
}
