import type { WebhookEndpoint, WebhookEndpointInput } from '@acme/users-contract/webhooks';
import { ConfirmRevoke } from '../token-list.tsx';
import { Deliveries } from './deliveries.tsx';
import { formValuesOf } from './decide-endpoint-form.ts';
import { EndpointForm, type SubmitResult } from './endpoint-form.tsx';
import { EndpointSummary, type EndpointAction } from './endpoint-summary.tsx';
import type { ButtonRef } from './use-endpoint-focus.ts';
import { webhooksCopy as t } from './webhooks-copy.ts';

/** The dialog an endpoint's row may show: remove it, or rotate its secret. */
export type ConfirmKind = 'remove' | 'rotate';

/**
 * One listed endpoint: its summary or, while editing, its form; below it the confirmation asked for
 * and its deliveries when they are open.
 */
export function EndpointItem(props: {
  organisationId: string;
  endpoint: WebhookEndpoint;
  busy: boolean;
  editing: boolean;
  confirming: ConfirmKind | null;
  deliveriesOpen: boolean;
  buttonRef: ButtonRef;
  onSave: (body: Required<WebhookEndpointInput>) => Promise<SubmitResult>;
  onCancelEdit: () => void;
  onDeliveries: () => void;
  onAction: (action: EndpointAction) => void;
  onConfirm: () => void;
  onCancelConfirm: () => void;
}) {
  const { endpoint, confirming } = props;
  return (
    <li className="webhook-endpoint">
      {props.editing ? (
        <EndpointForm
          heading={t.editHeading(endpoint.url)}
          headingLevel={4}
          initial={formValuesOf(endpoint)}
          submitLabel={t.saveChanges}
          busy={props.busy}
          focusOnOpen
          onSubmit={props.onSave}
          onCancel={props.onCancelEdit}
        />
      ) : (
        <EndpointSummary
          endpoint={endpoint}
          busy={props.busy}
          deliveriesOpen={props.deliveriesOpen}
          buttonRef={props.buttonRef}
          onDeliveries={props.onDeliveries}
          onAction={props.onAction}
        />
      )}
      {confirming ? (
        <ConfirmRevoke
          textId={`webhook-confirm-${endpoint.id}`}
          text={confirming === 'remove' ? t.confirmRemove(endpoint.url) : t.confirmRotate(endpoint.url)}
          confirmLabel={confirming === 'remove' ? t.confirmRemoveButton : t.confirmRotateButton}
          cancelLabel={t.cancel}
          busy={props.busy}
          onConfirm={props.onConfirm}
          onCancel={props.onCancelConfirm}
          escapable
        />
      ) : null}
      {props.deliveriesOpen ? (
        <Deliveries
          organisationId={props.organisationId}
          endpoint={endpoint}
          regionId={`webhook-deliveries-${endpoint.id}`}
        />
      ) : null}
    </li>
  );
}
