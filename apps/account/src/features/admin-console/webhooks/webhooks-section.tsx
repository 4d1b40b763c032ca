import type {
  WebhookEndpoint,
  WebhookEndpointPatch,
  WebhookEndpointWithSecret,
} from '@acme/users-contract/webhooks';
import { useEffect, useRef, useState } from 'react';
import type { Me } from '../console-client.ts';
import { consoleCopy } from '../copy.ts';
import { ConfirmRevoke, copyText, NoticeLine, ShownOnce, type Notice } from '../token-list.tsx';
import { formatDate, useLoad } from '../use-load.ts';
import { Deliveries } from './deliveries.tsx';
import { formValuesOf, NEW_ENDPOINT } from './decide-endpoint-form.ts';
import { webhookFailureOf } from './decide-webhook-failure.ts';
import { EndpointForm, type SubmitResult } from './endpoint-form.tsx';
import { selectEndpointView } from './select-webhook-views.ts';
import { useSlow } from './use-slow.ts';
import { webhooksApi } from './webhooks-client.ts';
import { webhooksCopy as t } from './webhooks-copy.ts';
import './webhooks.css';

type Confirming = { kind: 'remove' | 'rotate'; endpoint: WebhookEndpoint } | null;

/**
 * Webhooks (ManageOrganisationSettings): the organisation's endpoints (add, edit, pause and resume,
 * rotate the secret, delete) and each one's deliveries. A new secret shows once, here, and lives
 * only in this screen's state: leaving the section forgets it.
 */
export function WebhooksSection({ me }: { me: Me }) {
  const organisationId = me.organisationId;
  const [list, reload] = useLoad('webhooks', () => webhooksApi.list(organisationId));
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const [confirming, setConfirming] = useState<Confirming>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [showing, setShowing] = useState<string | null>(null);
  const [notice, setNotice] = useState<Notice>(null);
  const [busy, setBusy] = useState(false);
  const slowList = useSlow(list.state === 'loading');
  const slowWork = useSlow(busy);
  const endpointsHeading = useRef<HTMLHeadingElement>(null);
  const secretHeading = useRef<HTMLHeadingElement>(null);
  const buttons = useRef(new Map<string, HTMLButtonElement>());
  // The button to focus once the list shows it again (after a dialog or an edit closes).
  const focusNext = useRef<string | null>(null);

  useEffect(() => {
    if (secret) secretHeading.current?.focus();
  }, [secret]);
  useEffect(() => {
    const key = focusNext.current;
    const button = key ? buttons.current.get(key) : undefined;
    if (button && !button.disabled) {
      button.focus();
      focusNext.current = null;
    }
  });

  const buttonRef = (key: string) => (el: HTMLButtonElement | null) => {
    if (el) buttons.current.set(key, el);
    else buttons.current.delete(key);
  };

  /** Runs a change; a refused URL goes back to the form, anything else to the alert line. */
  async function change<T>(action: () => Promise<T>, done: (value: T) => void): Promise<SubmitResult> {
    setBusy(true);
    setNotice(null);
    try {
      done(await action());
      reload();
      return { saved: true };
    } catch (error) {
      const decision = webhookFailureOf(error);
      if (decision.type === 'url') return { saved: false, urlRefused: decision.message };
      setNotice({ error: decision.message });
      if (decision.type === 'gone') reload();
      return { saved: false };
    } finally {
      setBusy(false);
    }
  }

  const showSecret = (answer: WebhookEndpointWithSecret) =>
    setSecret({ url: answer.endpoint.url, secret: answer.secret });

  async function toggle(endpoint: WebhookEndpoint) {
    const pause = selectEndpointView(endpoint).toggle === 'pause';
    const body: WebhookEndpointPatch = { state: pause ? 'paused' : 'active' };
    focusNext.current = `toggle:${endpoint.id}`;
    await change(
      () => webhooksApi.update(organisationId, endpoint.id, body),
      () => setNotice({ text: pause ? t.paused(endpoint.url) : t.resumed(endpoint.url) }),
    );
  }

  function cancelConfirm(current: NonNullable<Confirming>) {
    setConfirming(null);
    buttons.current.get(`${current.kind}:${current.endpoint.id}`)?.focus();
  }

  async function confirm(current: NonNullable<Confirming>) {
    const { endpoint } = current;
    if (current.kind === 'rotate') {
      const result = await change(
        () => webhooksApi.rotateSecret(organisationId, endpoint.id),
        (answer) => {
          showSecret(answer);
          setNotice({ text: t.rotated(endpoint.url) });
        },
      );
      setConfirming(null);
      // Rotated, the focus is on the new secret; refused, back on the button that asked.
      if (!result.saved) focusNext.current = `rotate:${endpoint.id}`;
      return;
    }
    await change(
      () => webhooksApi.remove(organisationId, endpoint.id),
      () => {
        setNotice({ text: t.removed(endpoint.url) });
        if (showing === endpoint.id) setShowing(null);
      },
    );
    setConfirming(null);
    // The row and its buttons go: the focus moves to the list's heading, not to the page's start.
    endpointsHeading.current?.focus();
  }

  const endpoints = list.state === 'ready' ? list.value.endpoints : [];
  return (
    <section aria-labelledby="webhooks-title" className="webhooks">
      <h2 id="webhooks-title">{consoleCopy.sections.webhooks}</h2>
      <p>{t.intro}</p>
      {slowWork ? <p role="status">{t.working}</p> : null}
      <NoticeLine notice={notice} />
      {secret ? (
        <ShownOnce
          titleId="webhook-secret-title"
          level={3}
          heading={t.secretHeading}
          headingRef={secretHeading}
          warning={t.secretOnce}
          copyLabel={t.copy}
          onCopy={() => void copyText(secret.secret, t.copied, t.copyFailed).then(setNotice)}
          doneLabel={t.done}
          onDone={() => {
            setSecret(null);
            endpointsHeading.current?.focus();
          }}
        >
          <dl className="console-facts webhook-secret">
            <dt>{t.url}</dt>
            <dd>
              <code>{secret.url}</code>
            </dd>
            <dt>{t.secretHeading}</dt>
            <dd>
              <code data-testid="webhook-secret">{secret.secret}</code>
            </dd>
          </dl>
        </ShownOnce>
      ) : null}
      <h3 id="webhooks-endpoints-title" ref={endpointsHeading} tabIndex={-1}>
        {t.endpoints}
      </h3>
      {slowList ? <p role="status">{consoleCopy.loading}</p> : null}
      {list.state === 'error' ? <p role="alert">{consoleCopy.loadFailed(list.message)}</p> : null}
      {list.state === 'ready' && endpoints.length === 0 ? <p>{t.empty}</p> : null}
      {endpoints.length > 0 ? (
        <ul className="webhook-endpoints" aria-labelledby="webhooks-endpoints-title">
          {endpoints.map((endpoint) => (
            <li key={endpoint.id} className="webhook-endpoint">
              {editing === endpoint.id ? (
                <EndpointForm
                  heading={t.editHeading(endpoint.url)}
                  headingLevel={4}
                  initial={formValuesOf(endpoint)}
                  submitLabel={t.saveChanges}
                  busy={busy}
                  focusOnOpen
                  onSubmit={(body) => {
                    focusNext.current = `edit:${endpoint.id}`;
                    return change(
                      () => webhooksApi.update(organisationId, endpoint.id, body),
                      () => {
                        setEditing(null);
                        setNotice({ text: t.saved(body.url) });
                      },
                    );
                  }}
                  onCancel={() => {
                    focusNext.current = `edit:${endpoint.id}`;
                    setEditing(null);
                  }}
                />
              ) : (
                <EndpointSummary
                  endpoint={endpoint}
                  busy={busy}
                  deliveriesOpen={showing === endpoint.id}
                  buttonRef={buttonRef}
                  onDeliveries={() => setShowing(showing === endpoint.id ? null : endpoint.id)}
                  onEdit={() => setEditing(endpoint.id)}
                  onToggle={() => void toggle(endpoint)}
                  onRotate={() => setConfirming({ kind: 'rotate', endpoint })}
                  onRemove={() => setConfirming({ kind: 'remove', endpoint })}
                />
              )}
              {confirming?.endpoint.id === endpoint.id ? (
                <ConfirmRevoke
                  textId={`webhook-confirm-${endpoint.id}`}
                  text={
                    confirming.kind === 'remove'
                      ? t.confirmRemove(endpoint.url)
                      : t.confirmRotate(endpoint.url)
                  }
                  confirmLabel={confirming.kind === 'remove' ? t.confirmRemoveButton : t.confirmRotateButton}
                  cancelLabel={t.cancel}
                  busy={busy}
                  onConfirm={() => void confirm(confirming)}
                  onCancel={() => cancelConfirm(confirming)}
                  escapable
                />
              ) : null}
              {showing === endpoint.id ? (
                <Deliveries
                  organisationId={organisationId}
                  endpoint={endpoint}
                  regionId={`webhook-deliveries-${endpoint.id}`}
                />
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      <EndpointForm
        heading={t.add}
        headingLevel={3}
        initial={NEW_ENDPOINT}
        submitLabel={t.save}
        busy={busy}
        resetOnSave
        onSubmit={(body) =>
          change(
            () => webhooksApi.create(organisationId, body),
            (answer) => {
              showSecret(answer);
              setNotice({ text: t.added(answer.endpoint.url) });
            },
          )
        }
      />
    </section>
  );
}

/** An endpoint as listed: its URL, state, events and date, and what can be done with it. */
function EndpointSummary(props: {
  endpoint: WebhookEndpoint;
  busy: boolean;
  deliveriesOpen: boolean;
  buttonRef: (key: string) => (el: HTMLButtonElement | null) => void;
  onDeliveries: () => void;
  onEdit: () => void;
  onToggle: () => void;
  onRotate: () => void;
  onRemove: () => void;
}) {
  const { endpoint, busy, buttonRef } = props;
  const view = selectEndpointView(endpoint);
  return (
    <>
      <h4 className="webhook-url">{endpoint.url}</h4>
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
          aria-label={t.deliveriesNamed(endpoint.url)}
          onClick={props.onDeliveries}
        >
          {t.deliveries}
        </button>
        <button
          type="button"
          className="button secondary"
          ref={buttonRef(`edit:${endpoint.id}`)}
          aria-label={t.editNamed(endpoint.url)}
          disabled={busy}
          onClick={props.onEdit}
        >
          {t.edit}
        </button>
        <button
          type="button"
          className="button secondary"
          ref={buttonRef(`toggle:${endpoint.id}`)}
          aria-label={view.toggle === 'pause' ? t.pauseNamed(endpoint.url) : t.resumeNamed(endpoint.url)}
          disabled={busy}
          onClick={props.onToggle}
        >
          {view.toggle === 'pause' ? t.pause : t.resume}
        </button>
        <button
          type="button"
          className="button secondary"
          ref={buttonRef(`rotate:${endpoint.id}`)}
          aria-label={t.rotateNamed(endpoint.url)}
          disabled={busy}
          onClick={props.onRotate}
        >
          {t.rotate}
        </button>
        <button
          type="button"
          className="button secondary"
          ref={buttonRef(`remove:${endpoint.id}`)}
          aria-label={t.removeNamed(endpoint.url)}
          disabled={busy}
          onClick={props.onRemove}
        >
          {t.remove}
        </button>
      </div>
    </>
  );
}
