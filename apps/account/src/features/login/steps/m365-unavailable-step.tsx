import { copy } from '../../../copy.ts';
import { Card } from '../../../shared/ui/card.tsx';
import type { M365Alternative } from '../select-m365-alternative.ts';

const t = copy.login.m365Unavailable;

/**
 * A Microsoft 365 address typed on an application without Microsoft 365 sign-in: says so in words,
 * then MAGIC's m365 login (the organisation has MAGIC) or the support contact, and Use another email.
 */
export function M365UnavailableStep({
  email,
  appName,
  alternative,
  onUseAnotherEmail,
}: {
  email: string;
  appName: string;
  alternative: M365Alternative;
  onUseAnotherEmail: () => void;
}) {
  return (
    <Card title={t.title}>
      <p>{t.text(email, appName)}</p>
      {alternative.type === 'magic' ? (
        <>
          <p className="muted">{alternative.device ? t.magicDeviceText : t.magicText}</p>
          <a className="button" href={alternative.url}>
            {alternative.device ? t.magicDeviceLink : t.magicLink}
          </a>
        </>
      ) : (
        <p className="muted">
          {t.supportPrefix(appName)} <a href={`mailto:${alternative.email}`}>{alternative.email}</a>{' '}
          {t.supportSuffix}
        </p>
      )}
      <button type="button" className="button secondary" onClick={onUseAnotherEmail}>
        {copy.login.useAnotherEmail}
      </button>
    </Card>
  );
}
