import { copy } from '../../copy.ts';
import type { ErrorPageMode } from '../errors/error-store.ts';
import { paths } from '../config/paths.ts';

/** Error page: a message, a retry control (Back to Login, or Retry = refresh), support hint. */
export function ErrorView({ message, mode = 'login' }: { message?: string; mode?: ErrorPageMode }) {
  return (
    <main className="page">
      <section className="card">
        <h1 id="error-title" className="card-title">
          {copy.errorPage.title}
        </h1>
        <div className="error-box" role="alert">
          {message ? <p>{message}</p> : null}
        </div>
        <p className="muted">{copy.errorPage.persist}</p>
        {mode === 'retry' ? (
          <button type="button" className="button" onClick={() => window.location.reload()}>
            {copy.errorPage.retry}
          </button>
        ) : (
          <a className="button" href={paths.login}>
            {copy.errorPage.backToLogin}
          </a>
        )}
      </section>
    </main>
  );
}
