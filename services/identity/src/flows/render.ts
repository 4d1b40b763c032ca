import type { UiContainer } from '@ory/client';
import type { FlowRow } from '../db/schema.ts';

/** The request fields of every flow's JSON, in Kratos's order. */
export function flowRequestFields(flow: FlowRow) {
  return {
    type: flow.type,
    expires_at: flow.expires_at.toISOString(),
    issued_at: flow.issued_at.toISOString(),
    request_url: flow.request_url,
    ...(flow.return_to ? { return_to: flow.return_to } : {}),
  };
}

/** Fields every self-service flow's JSON carries (login adds its own in Kratos's order). */
export function baseFlow(flow: FlowRow, ui: UiContainer) {
  return { id: flow.id, ...flowRequestFields(flow), ui, state: flow.state };
}
