import { copy } from '../copy.ts';
import { useResearch } from '../features/research/use-research.ts';
import { paths } from '../shared/config/paths.ts';
import { ErrorView } from '../shared/ui/error-view.tsx';
import { Progress } from '../shared/ui/progress.tsx';
import { AccessDeniedView } from './access-denied.tsx';

/** The initial page (outside /account): the signed-in user, the token's ext claims, a logout link. */
export default function ResearchRoute() {
  const { session, claims, access, config, tokenError } = useResearch();
  if (tokenError) return <ErrorView message={tokenError} mode="login" />;
  if (session.state === 'error') {
    return (
      <ErrorView message={copy.errors.loadingSession(session.error ?? copy.errors.unknown)} mode="retry" />
    );
  }
  if (!access || access.type === 'login') return <Progress label={copy.common.loading} />;
  if (access.type === 'denied-product')
    return <AccessDeniedView product={access.product} email={config.supportEmail} />;
  if (access.type !== 'allow') return <AccessDeniedView />;
  return (
    <main className="page">
      <section className="card">
        <h1 id="research-title" className="card-title">
          {copy.research.title}
        </h1>
        <p>
          {copy.research.signedInAs} <strong data-testid="signed-in-email">{session.facts?.email}</strong>
        </p>
        <h2 className="muted">{copy.research.claims}</h2>
        <pre className="claims" data-testid="token-ext">
          {JSON.stringify(claims?.ext ?? {}, null, 2)}
        </pre>
        <a className="button secondary" href={paths.logout}>
          {copy.research.logout}
        </a>
      </section>
    </main>
  );
}
