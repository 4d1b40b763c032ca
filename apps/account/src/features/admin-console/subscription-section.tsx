import { consoleApi, type Me } from './console-client.ts';
import { consoleCopy as t } from './copy.ts';
import { selectSubscriptionSummary } from './select-subscription-summary.ts';
import { formatDate, formatNumber, useLoad } from './use-load.ts';

export function SubscriptionSection({ me }: { me: Me }) {
  const [loaded] = useLoad('subscription', () => consoleApi.subscription(me.organisationId));
  const summary = loaded.state === 'ready' ? selectSubscriptionSummary(loaded.value) : null;
  return (
    <section aria-labelledby="subscription-title">
      <h2 id="subscription-title">{t.sections.subscription}</h2>
      {loaded.state === 'loading' ? <p role="status">{t.loading}</p> : null}
      {loaded.state === 'error' ? <p role="alert">{t.loadFailed(loaded.message)}</p> : null}
      {summary && loaded.state === 'ready' ? (
        <>
          <dl>
            <dt>{t.subscription.plan}</dt>
            <dd>{summary.plan}</dd>
            <dt>{t.subscription.status}</dt>
            <dd>{summary.attention ? <strong>{summary.status}</strong> : summary.status}</dd>
            <dt>{t.subscription.source}</dt>
            <dd>{summary.source}</dd>
          </dl>
          <p>{t.subscription.readOnly}</p>
          {loaded.value.marketplace.length > 0 ? (
            <table className="console-table">
              <caption>{t.subscription.history}</caption>
              <thead>
                <tr>
                  <th scope="col">{t.subscription.plan}</th>
                  <th scope="col">{t.subscription.status}</th>
                  <th scope="col">{t.subscription.seats}</th>
                  <th scope="col">{t.subscription.since}</th>
                  <th scope="col">{t.subscription.updated}</th>
                </tr>
              </thead>
              <tbody>
                {loaded.value.marketplace.map((s) => (
                  <tr key={s.id}>
                    <td data-label={t.subscription.plan}>{`${s.planId} (${s.offerId})`}</td>
                    <td data-label={t.subscription.status}>{s.status}</td>
                    <td data-label={t.subscription.seats}>{formatNumber(s.quantity)}</td>
                    <td data-label={t.subscription.since}>{formatDate(s.activatedAt)}</td>
                    <td data-label={t.subscription.updated}>{formatDate(s.updatedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
