import { copy } from '../../../copy.ts';
import { Card } from '../../../shared/ui/card.tsx';
import { useSendVerification } from '../use-send-verification.ts';

/** Login step 3 (the redirect itself comes with the SSO issue). */
export function SsoStep({ loop = false }: { loop?: boolean }) {
  return (
    <Card>
      <p role="status">{loop ? copy.login.sso.redirectLoop : copy.login.sso.redirecting}</p>
    </Card>
  );
}

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
