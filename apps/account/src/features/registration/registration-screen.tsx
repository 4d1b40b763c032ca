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

/** The form's fields in order: the trait each fills (its `fieldErrors` key), label and autofill. */
const FIELDS = [
  {
    name: 'email',
    get label() {
      return copy.registration.emailLabel;
    },
    type: 'email',
    autoComplete: 'email',
  },
  {
    name: 'first',
    get label() {
      return copy.registration.firstNameLabel;
    },
    type: undefined,
    autoComplete: 'given-name',
  },
  {
    name: 'last',
    get label() {
      return copy.registration.lastNameLabel;
    },
    type: undefined,
    autoComplete: 'family-name',
  },
  {
    name: 'password',
    get label() {
      return copy.registration.passwordLabel;
    },
    type: 'password',
    autoComplete: 'new-password',
  },
] as const;

type FieldName = (typeof FIELDS)[number]['name'];

/** Self sign-up (issue 25): address, name and password; the identity service decides who may. */
export function RegistrationScreen({ search }: { search: RegistrationSearch }) {
  const r = useRegistration(search);
  const [values, setValues] = useState<Record<FieldName, string>>({
    email: r.initialEmail,
    first: '',
    last: '',
    password: '',
  });
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
  const ready = Object.values(values).every((v) => v.trim() !== '');

  function handleSubmit(event: FormEvent) {
    event.preventDefault();
    const { email, first: firstName, last: lastName, password } = values;
    if (ready) void r.submit({ email: email.trim(), firstName, lastName, password });
  }

  const s = copy.registration;
  return (
    <Card title={s.heading}>
      <p className="muted">{s.text}</p>
      <form onSubmit={handleSubmit} aria-busy={r.busy}>
        {FIELDS.map((field) => (
          <TextField
            key={field.name}
            label={field.label}
            type={field.type}
            name={field.name}
            autoComplete={field.autoComplete}
            required
            value={values[field.name]}
            onChange={(e) => {
              const value = e.target.value;
              setValues((current) => ({ ...current, [field.name]: value }));
            }}
            errors={view.fieldErrors[field.name]}
          />
        ))}
        <FormErrors messages={view.formErrors} />
        <button type="submit" className="button" disabled={!ready || r.busy}>
          {s.submit}
        </button>
      </form>
      {/* A paragraph of its own: spaced from the button above it by more than a target's 24 px (WCAG 2.5.8). */}
      <p>
        <Link href={paths.login}>{s.backToLogin}</Link>
      </p>
    </Card>
  );
}
