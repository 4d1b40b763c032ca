import type { WebhookEndpoint } from '@acme/users-contract/webhooks';
import { formatDate } from '../use-load.ts';
import { selectEndpointView } from './select-webhook-views.ts';
import type { ButtonRef } from './use-endpoint-focus.ts';
import { webhooksCopy as t } from './webhooks-copy.ts';

/** What can be done to a listed endpoint; each button is named `<action>:<endpointId>` for the focus. */
export type EndpointAction = 'edit' | 'toggle' | 'rotate' | 'remove';

/** An endpoint as listed: its URL, state, events and date, and what can be done with it. */
export function EndpointSummary(props: {
  endpoint: WebhookEndpoint;
  busy: boolean;
  deliveriesOpen: boolean;
  buttonRef: ButtonRef;
  onDeliveries: () => void;
  onAction: (action: EndpointAction) => void;
}) {
  const { endpoint } = props;
  const view = selectEndpointView(endpoint);
  const url = endpoint.url;
  const actions: { action: EndpointAction; label: string; name: string }[] = [
    { action: 'edit', label: t.edit, name: t.editNamed(url) },
    view.toggle === 'pause'
      ? { action: 'toggle', label: t.pause, name: t.pauseNamed(url) }
      : { action: 'toggle', label: t.resume, name: t.resumeNamed(url) },
    { action: 'rotate', label: t.rotate, name: t.rotateNamed(url) },
    { action: 'remove', label: t.remove, name: t.removeNamed(url) },
  ];
  return (
    <>
      <h4 className="webhook-url">{url}</h4>
      <dl className="console-facts">
        <dt>{t.stateLabel}</dt>
        <dd>
          <span className="badge" data-state={endpoint.state}>
            {view.state}
          </span>
        </dd>
        <dt>{t.eventsLabel}</dt>
        <dd>
          {view.eventTypes === null ? (
            t.allEvents
          ) : (
            <ul className="webhook-event-names" aria-label={t.eventCount(view.eventTypes.length)}>
              {view.eventTypes.map((type) => (
                <li key={type}>
                  <code>{type}</code>
                </li>
              ))}
            </ul>
          )}
        </dd>
        <dt>{t.createdLabel}</dt>
        <dd>{formatDate(endpoint.createdAt)}</dd>
      </dl>
      <div className="row webhook-actions">
        <button
          type="button"
          className="button secondary"
          aria-expanded={props.deliveriesOpen}
          aria-controls={props.deliveriesOpen ? `webhook-deliveries-${endpoint.id}` : undefined}
          aria-label={t.deliveriesNamed(url)}
          onClick={props.onDeliveries}
        >
          {t.deliveries}
        </button>
        {actions.map(({ action, label, name }) => (
          <button
            key={action}
            type="button"
            className="button secondary"
            ref={props.buttonRef(`${action}:${endpoint.id}`)}
            aria-label={name}
            disabled={props.busy}
            onClick={() => props.onAction(action)}
          >
            {label}
          </button>
        ))}
      </div>
    </>
  );
}
