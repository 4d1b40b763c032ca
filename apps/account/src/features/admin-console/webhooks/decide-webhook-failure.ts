import { WEBHOOK_ERRORS } from '@acme/users-contract/webhooks';
import { failure } from '../use-load.ts';

// Where a refused call of the Webhooks section is shown: a refused URL beside its field, an endpoint
// that is gone in the alert line with the list loaded again, anything else in the alert line. The
// words are the user service's (`{errorCode, message}`).

export type WebhookFailure =
  { type: 'url'; message: string } | { type: 'gone'; message: string } | { type: 'alert'; message: string };

export function decideWebhookFailure(refused: { errorCode?: string; message: string }): WebhookFailure {
  switch (refused.errorCode) {
    case WEBHOOK_ERRORS.urlRefused:
      return { type: 'url', message: refused.message };
    case WEBHOOK_ERRORS.notFound:
      return { type: 'gone', message: refused.message };
    default:
      return { type: 'alert', message: refused.message };
  }
}

/** A thrown error (HttpError or other) as where it is shown. */
export const webhookFailureOf = (error: unknown): WebhookFailure => decideWebhookFailure(failure(error));
