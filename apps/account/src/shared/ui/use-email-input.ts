import type { ChangeEvent } from 'react';
import { useRef, useState } from 'react';
import { copy } from '../../copy.ts';

/**
 * An email input checked by the browser's own email validity on submit: `validate()` marks the
 * field invalid when the check fails, typing clears the mark. Spread `field` into a `TextField`.
 */
export function useEmailInput(initial: string) {
  const [email, setEmail] = useState(initial);
  const [invalid, setInvalid] = useState(false);
  const ref = useRef<HTMLInputElement>(null);
  return {
    email,
    validate(): boolean {
      const valid = ref.current?.checkValidity() === true;
      setInvalid(!valid);
      return valid;
    },
    focus(): void {
      ref.current?.focus();
    },
    field: {
      ref,
      label: copy.login.email.emailLabel,
      type: 'email',
      name: 'email',
      required: true,
      autoFocus: true,
      value: email,
      onChange: (event: ChangeEvent<HTMLInputElement>) => {
        setEmail(event.target.value);
        setInvalid(false);
      },
      errors: invalid ? [copy.login.email.invalidEmail] : [],
    },
  };
}
