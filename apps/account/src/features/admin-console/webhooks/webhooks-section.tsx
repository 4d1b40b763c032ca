import type { WebhookEndpoint } from '@acme/users-contract/webhooks';
import { useState } from 'react';
import { useSlow } from '../../../shared/ui/use-slow.ts';
import type { Me } from '../console-client.ts';
import { consoleCopy } from '../copy.ts';
import { NoticeLine } from '../token-list.tsx';
import { useLoad } from '../use-load.ts';
import { NEW_ENDPOINT } from './decide-endpoint-form.ts';
import { EndpointForm } from './endpoint-form.tsx';
import { EndpointItem, type ConfirmKind } from './endpoint-item.tsx';
import type { EndpointAction } from './endpoint-summary.tsx';
import { useEndpointFocus } from './use-endpoint-focus.ts';
import { useWebhookChanges } from './use-webhook-changes.ts';
import { WebhookSecret } from './webhook-secret.tsx';
import { webhooksApi } from './webhooks-client.ts';
import { webhooksCopy as t } from './webhooks-copy.ts';
import './webhooks.css';

type Confirming = { kind: ConfirmKind; endpoint: WebhookEndpoint } | null;

/**
 * Webhooks (ManageOrganisationSettings): the organisation's endpoints (add, edit, pause and resume,
 * rotate the secret, delete) and each one's deliveries. A new secret shows once, here, and lives
 * only in this screen's state: leaving the section forgets it.
 */
export function WebhooksSection({ me }: { me: Me }) {
  const organisationId = me.organisationId;
  const [list, reload] = useLoad('webhooks', () => webhooksApi.list(organisationId));
  const changes = useWebhookChanges(organisationId, reload);
  const { endpointsHeading, secretHeading, buttonRef, focusLater, focusNow, focusList } = useEndpointFocus(
    changes.secret,
  );
  const [confirming, setConfirming] = useState<Confirming>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [showing, setShowing] = useState<string | null>(null);
  const slowList = useSlow(list.state === 'loading');
  const slowWork = useSlow(changes.busy);

  function act(endpoint: WebhookEndpoint, action: EndpointAction) {
    if (action === 'edit') setEditing(endpoint.id);
    else if (action === 'toggle') {
      focusLater(`toggle:${endpoint.id}`);
      void changes.toggle(endpoint);
    } else setConfirming({ kind: action, endpoint });
  }

  function cancelConfirm(current: NonNullable<Confirming>) {
    setConfirming(null);
    focusNow(`${current.kind}:${current.endpoint.id}`);
  }

  async function confirm({ kind, endpoint }: NonNullable<Confirming>) {
    if (kind === 'rotate') {
      const result = await changes.rotate(endpoint);
      setConfirming(null);
      // Rotated, the focus is on the new secret; refused, back on the button that asked.
      if (!result.saved) focusLater(`rotate:${endpoint.id}`);
      return;
    }
    await changes.remove(endpoint, () => {
      if (showing === endpoint.id) setShowing(null);
    });
    setConfirming(null);
    // The row and its buttons go: the focus moves to the list's heading, not to the page's start.
    focusList();
  }

  const endpoints = list.state === 'ready' ? list.value.endpoints : [];
  return (
    <section aria-labelledby="webhooks-title" className="webhooks">
      <h2 id="webhooks-title">{consoleCopy.sections.webhooks}</h2>
      <p>{t.intro}</p>
      {slowWork ? <p role="status">{t.working}</p> : null}
      <NoticeLine notice={changes.notice} />
      {changes.secret ? (
        <WebhookSecret
          secret={changes.secret}
          headingRef={secretHeading}
          onNotice={changes.setNotice}
          onDone={() => {
            changes.forgetSecret();
            focusList();
          }}
        />
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
            <EndpointItem
              key={endpoint.id}
              organisationId={organisationId}
              endpoint={endpoint}
              busy={changes.busy}
              editing={editing === endpoint.id}
              confirming={confirming?.endpoint.id === endpoint.id ? confirming.kind : null}
              deliveriesOpen={showing === endpoint.id}
              buttonRef={buttonRef}
              onSave={(body) => {
                focusLater(`edit:${endpoint.id}`);
                return changes.save(endpoint, body, () => setEditing(null));
              }}
              onCancelEdit={() => {
                focusLater(`edit:${endpoint.id}`);
                setEditing(null);
              }}
              onDeliveries={() => setShowing(showing === endpoint.id ? null : endpoint.id)}
              onAction={(action) => act(endpoint, action)}
              onConfirm={() => confirming && void confirm(confirming)}
              onCancelConfirm={() => confirming && cancelConfirm(confirming)}
            />
          ))}
        </ul>
      ) : null}
      <EndpointForm
        heading={t.add}
        headingLevel={3}
        initial={NEW_ENDPOINT}
        submitLabel={t.save}
        busy={changes.busy}
        resetOnSave
        onSubmit={changes.create}
      />
    </section>
  );
}
