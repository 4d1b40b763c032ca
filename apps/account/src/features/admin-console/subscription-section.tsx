import { consoleApi, type Me } from './console-client.ts';
import { consoleCopy as t } from './copy.ts';
import { selectSubscriptionSummary } from './select-subscription-summary.ts';
import { formatDate, formatNumber, useLoad } from './use-load.ts';
import { ConsoleTable } from './console-table.tsx';
import { Loadable } from './loadable.tsx';

export function SubscriptionSection({ me }: { me: Me }) {
  const [loaded] = useLoad('subscription', () => consoleApi.subscription(me.organisationId));
  return (
    <section aria-labelledby="subscription-title">
      <h2 id="subscription-title">{t.sections.subscription}</h2>
      <Loadable loaded={loaded}>
        {(subscription) => {
          const summary = selectSubscriptionSummary(subscription);
          return (
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
              {subscription.marketplace.length > 0 ? (
                <ConsoleTable
                  caption={t.subscription.history}
                  columns={[
                    t.subscription.plan,
                    t.subscription.status,
                    t.subscription.seats,
                    t.subscription.since,
                    t.subscription.updated,
                  ]}
                  rows={subscription.marketplace.map((s) => ({
                    key: s.id,
                    cells: [
                      <code key="plan">{`${s.planId} (${s.offerId})`}</code>,
                      s.status,
                      formatNumber(s.quantity),
                      formatDate(s.activatedAt),
                      formatDate(s.updatedAt),
                    ],
                  }))}
                />
              ) : null}
            </>
          );
        }}
      </Loadable>
    </section>
  );
}
