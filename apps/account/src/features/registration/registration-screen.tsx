import type { FormEvent } from 'react';
import { useState } from 'react';
import { copy } from '../../copy.ts';
import { paths } from '../../shared/config/paths.ts';
import { Card } from '../../shared/ui/card.tsx';
import { FormErrors } from '../../shared/ui/form-errors.tsx';
import { Link } from '../../shared/ui/link.tsx';
import { Progress } from '../../shared/ui/progress.tsx';
import { TextField } from '../../shared/ui/text-field.tsx';
import type { RegistrationSearch } from './use-registration.ts';
import { useRegistration } from './use-registration.ts';

/** Self sign-up (issue 25): address, name and password; the identity service decides who may. */
export function RegistrationScreen({ search }: { search: RegistrationSearch }) {
  const r = useRegistration(search);
  const [email, setEmail] = useState(r.initialEmail);
  const [firstName, setFirstName] = useState('');
  const [lastName, setLastName] = useState('');
  const [password, setPassword] = useState('');
  const { view } = r;
  if (view.kind === 'loading') return <Progress label={copy.common.loading} />;
  if (view.kind === 'closed') {
    return (
      <Card title={copy.registration.closedHeading}>
        <p>{copy.registration.closedText}</p>
        <Link href={paths.login}>{copy.registration.backToLogin}</Link>
      </Card>
    );
  }
  const ready = [email, firstName, lastName, password].every((v) => v.trim() !== '');

  function handleSubmit(event: FormEvent) {
    event.preventDefault();
    if (ready) void r.submit({ email: email.trim(), firstName, lastName, password });
  }

  const s = copy.registration;
  return (
    <Card title={s.heading}>
      <p className="muted">{s.text}</p>
      <form onSubmit={handleSubmit} aria-busy={r.busy}>
        <TextField
          label={s.emailLabel}
          type="email"
          name="email"
          autoComplete="email"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          errors={view.fieldErrors.email}
        />
        <TextField
          label={s.firstNameLabel}
          name="first"
          autoComplete="given-name"
          required
          value={firstName}
          onChange={(e) => setFirstName(e.target.value)}
          errors={view.fieldErrors.first}
        />
        <TextField
          label={s.lastNameLabel}
          name="last"
          autoComplete="family-name"
          required
          value={lastName}
          onChange={(e) => setLastName(e.target.value)}
          errors={view.fieldErrors.last}
        />
        <TextField
          label={s.passwordLabel}
          type="password"
          name="password"
          autoComplete="new-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          errors={view.fieldErrors.password}
        />
        <FormErrors messages={view.formErrors} />
        <button type="submit" className="button" disabled={!ready || r.busy}>
          {s.submit}
        </button>
      </form>
      <Link href={paths.login}>{s.backToLogin}</Link>
    </Card>
  );
}
