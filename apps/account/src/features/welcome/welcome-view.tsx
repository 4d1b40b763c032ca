import { copy } from '../../copy.ts';
import { paths } from '../../shared/config/paths.ts';

/**
 * The informational welcome page for an organisation without a subscription: what the product is,
 * that the organisation has none, how an admin subscribes (the offer link), the contact, and logout.
 * Not an error: it is where such a user lands after any sign-in.
 */
export function WelcomeView({
  appName,
  email,
  offerUrl,
  supportEmail,
}: {
  appName: string;
  email: string | undefined;
  offerUrl: string;
  supportEmail: string;
}) {
  return (
    <main className="page">
      <section className="card" aria-labelledby="welcome-title">
        <h1 id="welcome-title" className="card-title">
          {copy.welcome.title(appName)}
        </h1>
        {email ? (
          <p>
            {copy.welcome.signedInAs} <strong data-testid="signed-in-email">{email}</strong>
          </p>
        ) : null}
        <p>{copy.welcome.product}</p>
        <p data-testid="welcome-no-subscription">{copy.welcome.noSubscription}</p>
        <p>
          {copy.welcome.howToSubscribe}{' '}
          <a href={offerUrl} rel="noopener noreferrer" target="_blank">
            {copy.welcome.offerLink}
          </a>
        </p>
        <p>
          {copy.welcome.contact} <a href={`mailto:${supportEmail}`}>{supportEmail}</a>.
        </p>
        <a className="button secondary" href={paths.logout}>
          {copy.research.logout}
        </a>
      </section>
    </main>
  );
}
