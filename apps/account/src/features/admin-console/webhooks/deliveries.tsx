import type { WebhookDelivery, WebhookEndpoint } from '@acme/users-contract/webhooks';
import { useEffect, useState, type ReactNode } from 'react';
import { consoleCopy } from '../copy.ts';
import { ConsoleTable } from '../console-table.tsx';
import { NoticeLine, type Notice } from '../token-list.tsx';
import { failure, formatNumber } from '../use-load.ts';
import { appendDeliveries, applyRedelivery, selectDeliveryView } from './select-webhook-views.ts';
import { useNarrow } from './use-narrow.ts';
import { useSlow } from '../../../shared/ui/use-slow.ts';
import { webhooksApi } from './webhooks-client.ts';
import { webhooksCopy as t } from './webhooks-copy.ts';

type Loading = 'first' | 'more' | null;

/**
 * The deliveries of one endpoint, newest first, a page at a time ("Load more" follows the service's
 * cursor); each delivered, failed or abandoned one can be sent again. A table, or a list on a narrow
 * window.
 */
export function Deliveries({
  organisationId,
  endpoint,
  regionId,
}: {
  organisationId: string;
  endpoint: WebhookEndpoint;
  regionId: string;
}) {
  const [rows, setRows] = useState<WebhookDelivery[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [loading, setLoading] = useState<Loading>('first');
  const [round, setRound] = useState(0);
  const [redelivering, setRedelivering] = useState<string | null>(null);
  const [notice, setNotice] = useState<Notice>(null);
  const slow = useSlow(loading !== null || redelivering !== null);
  const narrow = useNarrow();
  const headingId = `${regionId}-title`;

  // The first page, when the region opens and at each Refresh.
  useEffect(() => {
    let live = true;
    webhooksApi.deliveries(organisationId, endpoint.id, null).then(
      (page) => {
        if (!live) return;
        setRows(page.deliveries);
        setNext(page.next);
        setLoading(null);
      },
      (error: unknown) => {
        if (!live) return;
        setNotice({ error: failure(error).message });
        setLoading(null);
      },
    );
    return () => {
      live = false;
    };
  }, [organisationId, endpoint.id, round]);

  function refresh() {
    setNotice(null);
    setLoading('first');
    setRound((r) => r + 1);
  }

  async function loadMore(after: string) {
    setLoading('more');
    setNotice(null);
    try {
      const page = await webhooksApi.deliveries(organisationId, endpoint.id, after);
      setRows((current) => appendDeliveries(current, page.deliveries));
      setNext(page.next);
    } catch (error) {
      setNotice({ error: failure(error).message });
    } finally {
      setLoading(null);
    }
  }

  async function redeliver(delivery: WebhookDelivery) {
    setRedelivering(delivery.id);
    setNotice(null);
    try {
      const answer = await webhooksApi.redeliver(organisationId, endpoint.id, delivery.id);
      setRows((current) => applyRedelivery(current, answer.delivery));
      setNotice({ text: t.redelivered(delivery.eventId) });
    } catch (error) {
      setNotice({ error: failure(error).message });
    } finally {
      setRedelivering(null);
    }
  }

  const redeliverButton = (delivery: WebhookDelivery) =>
    selectDeliveryView(delivery).canRedeliver ? (
      <button
        type="button"
        className="button secondary console-inline-button"
        disabled={redelivering !== null}
        aria-label={t.redeliverNamed(delivery.eventId)}
        onClick={() => void redeliver(delivery)}
      >
        {t.redeliver}
      </button>
    ) : null;

  return (
    <div id={regionId} role="region" aria-labelledby={headingId} className="webhook-deliveries">
      <div className="row webhook-deliveries-head">
        <h4 id={headingId}>{t.deliveriesHeading(endpoint.url)}</h4>
        <button
          type="button"
          className="button secondary console-inline-button"
          disabled={loading !== null}
          onClick={refresh}
        >
          {t.refresh}
        </button>
      </div>
      {slow ? <p role="status">{loading ? consoleCopy.loading : t.working}</p> : null}
      <NoticeLine notice={notice} />
      {rows.length === 0 ? (
        loading === 'first' ? null : (
          <p>{t.noDeliveries}</p>
        )
      ) : narrow ? (
        <DeliveryList rows={rows} action={redeliverButton} labelledBy={headingId} />
      ) : (
        <DeliveryTable rows={rows} action={redeliverButton} labelledBy={headingId} />
      )}
      {next && loading !== 'first' ? (
        <button
          type="button"
          className="button secondary console-inline-button"
          disabled={loading !== null}
          onClick={() => void loadMore(next)}
        >
          {t.loadMore}
        </button>
      ) : null}
    </div>
  );
}

type Action = (delivery: WebhookDelivery) => ReactNode;

const COLUMNS = [
  t.columns.eventType,
  t.columns.webhookId,
  t.columns.status,
  t.columns.attempts,
  t.columns.lastResponse,
  t.columns.lastAttempt,
  t.columns.nextAttempt,
];

/** A delivery's values in the order of COLUMNS. */
function cells(delivery: WebhookDelivery): ReactNode[] {
  const view = selectDeliveryView(delivery);
  return [
    <code key="type">{delivery.eventType}</code>,
    <code key="id">{delivery.eventId}</code>,
    view.status,
    formatNumber(delivery.attempts),
    view.lastResponse,
    view.lastAttempt,
    view.nextAttempt,
  ];
}

function DeliveryTable({
  rows,
  action,
  labelledBy,
}: {
  rows: WebhookDelivery[];
  action: Action;
  labelledBy: string;
}) {
  return (
    <ConsoleTable
      columns={COLUMNS}
      actionLabel={t.redeliver}
      labelledBy={labelledBy}
      rows={rows.map((delivery) => ({
        key: delivery.id,
        status: delivery.status,
        cells: cells(delivery),
        action: action(delivery),
      }))}
    />
  );
}

/** The narrow window's form of the table: one item a delivery, each value under its column's name. */
function DeliveryList({
  rows,
  action,
  labelledBy,
}: {
  rows: WebhookDelivery[];
  action: Action;
  labelledBy: string;
}) {
  return (
    <ul className="webhook-delivery-list" aria-labelledby={labelledBy}>
      {rows.map((delivery) => (
        <li key={delivery.id} data-status={delivery.status}>
          <dl className="console-facts">
            {cells(delivery).map((cell, i) => (
              <div key={COLUMNS[i]} className="console-uri">
                <dt>{COLUMNS[i]}</dt>
                <dd>{cell}</dd>
              </div>
            ))}
          </dl>
          {action(delivery)}
        </li>
      ))}
    </ul>
  );
}
