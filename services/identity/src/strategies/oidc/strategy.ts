import { errors } from '../../errors/identity-error.ts';
import type { Strategy, StrategyCallback } from '../../flows/strategy.ts';
import { startSamlLogin } from '../saml/saml-login.ts';
import { recordSsoRefusal } from './refusal-event.ts';
import { callbackUrl, finishOidcCallback, OIDC_CALLBACK_PATH, startOidcLogin } from './oidc-login.ts';

// Login method `oidc` on the flow engine: an organisation's identity provider signs the person in.
// The state sent to the provider is `<flow id>.<random>`, so the callback names its flow; the rest
// of the state is checked against the attempt stored at submit (single use).

const flowIdFromState = (state: string | undefined) => {
  const id = state?.split('.')[0];
  return id && /^[0-9a-f-]{36}$/i.test(id) ? id : undefined;
};

const callback: StrategyCallback = {
  method: 'GET',
  path: OIDC_CALLBACK_PATH,
  sameBrowser: true,
  flowId: (input) => flowIdFromState(input.query.state),
  async handle(flow, input, ctx) {
    const { service } = ctx;
    const raw = new URLSearchParams(input.query).toString();
    const outcome = await finishOidcCallback(
      service,
      (input.params.provider ?? '').slice(0, 100),
      input.query,
      raw,
      async (flowId) =>
        flowId === flow.id
          ? undefined
          : { type: 'no_flow', reason: 'The sign-in state does not match its flow.' },
    );
    switch (outcome.type) {
      case 'no_flow':
        return { type: 'error', error: errors.badRequest(outcome.reason) };
      case 'flow_error':
        await recordSsoRefusal(ctx, {
          method: 'oidc',
          provider: input.params.provider ?? '',
          reason: outcome.reason,
          identityId: outcome.identityId,
        });
        return { type: 'flow_updated', messages: outcome.messages };
      case 'success':
        return {
          type: 'success',
          identityId: outcome.identityId,
          method: 'oidc',
          provider: outcome.provider,
        };
    }
  },
};

/** Kratos answers a POST callback (response_mode=form_post) by redirecting it to the GET. */
const postCallback: StrategyCallback = {
  method: 'POST',
  path: OIDC_CALLBACK_PATH,
  flowId: (input) => flowIdFromState(typeof input.body.state === 'string' ? input.body.state : undefined),
  async handle(_flow, input, { service }) {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(input.body)) if (typeof v === 'string') query.set(k, v);
    return {
      type: 'location_change',
      to: `${callbackUrl(service.config, (input.params.provider ?? '').slice(0, 100))}?${query.toString()}`,
    };
  },
};

export const oidcLogin: Strategy = {
  method: 'oidc',
  group: 'oidc',
  // A redirect to the organisation's provider: browsers only.
  browserOnly: true,
  // A first factor: not on the second-factor (aal2) flows.
  accepts: (flow) => flow.requested_aal !== 'aal2',
  // Providers belong to organisations; the email step finds the one to use, so none is listed.
  nodes: () => [],
  async submit(flow, input, { service }) {
    // A SAML provider is submitted as `oidc` too (the app's SSO step posts `method=oidc` and the
    // provider, whatever the protocol; ADR 0018): its start is SAML's.
    const outcome = await startOidcLogin(service, flow, input, startSamlLogin);
    if (!outcome.ok) return { type: 'flow_updated', messages: outcome.messages };
    return { type: 'location_change', to: outcome.redirectTo };
  },
  callbacks: [callback, postCallback],
};
