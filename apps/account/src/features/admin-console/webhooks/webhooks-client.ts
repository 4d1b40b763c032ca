import type {
  WebhookDeliveryPage,
  WebhookEndpointInput,
  WebhookEndpointList,
  WebhookEndpointPatch,
  WebhookEndpointWithSecret,
  WebhookRedelivery,
} from '@acme/users-contract/webhooks';
import { consoleCall as call, organisationPath as org } from '../console-client.ts';

// The Webhooks section's calls (`/console/organisations/{id}/webhooks…`), typed by the contract the
// user service answers with.

/** How many deliveries one page asks for. */
export const DELIVERIES_PAGE_SIZE = 20;

const endpoints = (organisationId: string) => `${org(organisationId)}/webhooks`;
const endpoint = (organisationId: string, endpointId: string) =>
  `${endpoints(organisationId)}/${encodeURIComponent(endpointId)}`;

export const webhooksApi = {
  list: (organisationId: string) => call<WebhookEndpointList>(endpoints(organisationId)),
  create: (organisationId: string, body: WebhookEndpointInput) =>
    call<WebhookEndpointWithSecret>(endpoints(organisationId), { method: 'POST', body }),
  /** Its answer is not read: the list loads again. */
  update: (organisationId: string, endpointId: string, body: WebhookEndpointPatch) =>
    call<unknown>(endpoint(organisationId, endpointId), { method: 'PATCH', body }),
  remove: (organisationId: string, endpointId: string) =>
    call<unknown>(endpoint(organisationId, endpointId), { method: 'DELETE' }),
  rotateSecret: (organisationId: string, endpointId: string) =>
    call<WebhookEndpointWithSecret>(`${endpoint(organisationId, endpointId)}/rotate-secret`, {
      method: 'POST',
    }),
  deliveries: (organisationId: string, endpointId: string, after: string | null) => {
    const query = new URLSearchParams({ limit: String(DELIVERIES_PAGE_SIZE) });
    if (after) query.set('after', after);
    return call<WebhookDeliveryPage>(
      `${endpoint(organisationId, endpointId)}/deliveries?${query.toString()}`,
    );
  },
  redeliver: (organisationId: string, endpointId: string, deliveryId: string) =>
    call<WebhookRedelivery>(
      `${endpoint(organisationId, endpointId)}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`,
      { method: 'POST' },
    ),
};
