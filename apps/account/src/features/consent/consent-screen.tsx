import { copy } from '../../copy.ts';
import { Card } from '../../shared/ui/card.tsx';
import type { ConsentScreenData } from '../../shared/users-client/users-client.ts';
import { consentCopy as t } from './consent-copy.ts';

/**
 * The consent screen of an application that is not the platform's own: its name, logo and links,
 * who registered it, the access it asks for in words, the organisation the person signs in for,
 * and Allow or Deny. Every client-given value is rendered as text (React escapes it); the logo is
 * an https image only (the user service drops any other scheme) loaded without a referrer, and the
 * links open without giving the application a handle on this page.
 */
export function ConsentScreen({
  request,
  busy,
  answer,
}: {
  request: ConsentScreenData;
  busy: boolean;
  answer: (decision: 'allow' | 'deny') => void;
}) {
  const { client } = request;
  const links = [
    { href: client.clientUri, label: t.home },
    { href: client.policyUri, label: t.policy },
    { href: client.tosUri, label: t.terms },
  ].filter((l): l is { href: string; label: string } => l.href !== null);
  return (
    <Card title={t.title(client.name)}>
      {client.logoUri ? (
        <img
          className="consent-logo"
          src={client.logoUri}
          alt={t.logo(client.name)}
          width={64}
          height={64}
          referrerPolicy="no-referrer"
          data-testid="consent-logo"
        />
      ) : null}
      <p data-testid="consent-registrar">
        {request.registeredBy.organisation === null
          ? t.registeredByOperator
          : t.registeredByOrganisation(request.registeredBy.organisation)}
      </p>
      <p id="consent-asks">{t.asks(client.name)}</p>
      <ul aria-labelledby="consent-asks" data-testid="consent-scopes">
        {request.requestedScope.map((scope) => (
          <li key={scope}>{copy.device.scopes[scope] ?? scope}</li>
        ))}
      </ul>
      <p data-testid="consent-organisation">{t.signsInFor(request.organisation.name)}</p>
      {links.length > 0 ? (
        <nav aria-label={t.links}>
          <ul>
            {links.map((l) => (
              <li key={l.label}>
                <a href={l.href} target="_blank" rel="noopener noreferrer">
                  {l.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
      <p className="muted">{t.remembered}</p>
      <button type="button" className="button" disabled={busy} onClick={() => answer('allow')}>
        {t.allow}
      </button>
      <button type="button" className="button secondary" disabled={busy} onClick={() => answer('deny')}>
        {t.deny}
      </button>
    </Card>
  );
}
