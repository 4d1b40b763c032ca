import { copy } from '../../../copy.ts';
import { Card } from '../../../shared/ui/card.tsx';
import { useSendVerification } from '../use-send-verification.ts';

/** Login step 4: the address is not verified yet; instructions were sent. */
export function EmailConfirmationStep({ email }: { email: string }) {
  const verifyHref = useSendVerification(email);
  return (
    <Card title={copy.login.emailConfirmation.title}>
      <p>{copy.login.emailConfirmation.text}</p>
      <p>
        <strong>{email}</strong>
      </p>
      <a className="button secondary" href={verifyHref}>
        {copy.login.emailConfirmation.verifyNow}
      </a>
    </Card>
  );
}
