import type {
  WebhookEndpoint,
  WebhookEndpointInput,
  WebhookEndpointWithSecret,
} from '@acme/users-contract/webhooks';
import { useState } from 'react';
import type { Notice } from '../token-list.tsx';
import { webhookFailureOf } from './decide-webhook-failure.ts';
import type { SubmitResult } from './endpoint-form.tsx';
import { selectEndpointView } from './select-webhook-views.ts';
import { webhooksApi } from './webhooks-client.ts';
import { webhooksCopy as t } from './webhooks-copy.ts';

/** A secret just made (created or rotated): shown once, kept only in the section's state. */
export interface ShownSecret {
  url: string;
  secret: string;
}

type EndpointBody = Required<WebhookEndpointInput>;

/**
 * The changes the Webhooks section makes through the user service, one at a time (`busy`): each
 * reloads the list and says what it did in `notice`; a refused URL goes back to the form instead.
 */
export function useWebhookChanges(organisationId: string, reload: () => void) {
  const [notice, setNotice] = useState<Notice>(null);
  const [busy, setBusy] = useState(false);
  const [secret, setSecret] = useState<ShownSecret | null>(null);

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

  const showSecret = (answer: WebhookEndpointWithSecret, text: string) => {
    setSecret({ url: answer.endpoint.url, secret: answer.secret });
    setNotice({ text });
  };

  return {
    busy,
    notice,
    setNotice,
    secret,
    forgetSecret: () => setSecret(null),
    create: (body: EndpointBody) =>
      change(
        () => webhooksApi.create(organisationId, body),
        (answer) => showSecret(answer, t.added(answer.endpoint.url)),
      ),
    save: (endpoint: WebhookEndpoint, body: EndpointBody, done: () => void) =>
      change(
        () => webhooksApi.update(organisationId, endpoint.id, body),
        () => {
          done();
          setNotice({ text: t.saved(body.url) });
        },
      ),
    toggle: (endpoint: WebhookEndpoint) => {
      const pause = selectEndpointView(endpoint).toggle === 'pause';
      return change(
        () => webhooksApi.update(organisationId, endpoint.id, { state: pause ? 'paused' : 'active' }),
        () => setNotice({ text: pause ? t.paused(endpoint.url) : t.resumed(endpoint.url) }),
      );
    },
    rotate: (endpoint: WebhookEndpoint) =>
      change(
        () => webhooksApi.rotateSecret(organisationId, endpoint.id),
        (answer) => showSecret(answer, t.rotated(endpoint.url)),
      ),
    remove: (endpoint: WebhookEndpoint, done: () => void) =>
      change(
        () => webhooksApi.remove(organisationId, endpoint.id),
        () => {
          done();
          setNotice({ text: t.removed(endpoint.url) });
        },
      ),
  };
}
