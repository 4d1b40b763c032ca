import type { Strategy, StrategyCallback } from '../../flows/strategy.ts';
import { oidcServices } from '../oidc/oidc-login.ts';
import { recordSsoRefusal } from '../oidc/refusal-event.ts';
import { acceptSamlResponse, finishSamlLogin, samlKey, startSamlLogin } from './saml-login.ts';
import { SAML_ACS_PATH, SAML_FINISH_PATH } from './service-provider.ts';
import { messages } from '../../ui/messages.ts';
import type { UiText } from '@ory/client';

// Login method `saml` on the flow engine (issue 26). The app submits SAML providers as `oidc` (the
// oidc strategy hands them to `startSamlLogin`); `saml` is accepted too, as Kratos names it. The ACS is
// a cross-site POST (no SameSite=Lax cookie reaches it): it names its flow by RelayState and checks the
// answer against the AuthnRequest stored with that flow; the finish is a same-site GET that the engine
// lets through only with the flow's CSRF cookie, and only then is a session created.

const flowIdPattern = /^[0-9a-f-]{36}$/i;
const providerOf = (params: Record<string, string>) => (params.provider ?? '').slice(0, 100);

const acs: StrategyCallback = {
  method: 'POST',
  path: SAML_ACS_PATH,
  bodyLimit: (config) => config.saml.bodyLimit,
  flowId: (input) => {
    const relay = input.body.RelayState;
    return typeof relay === 'string' && flowIdPattern.test(relay) ? relay : undefined;
  },
  async handle(flow, input, ctx) {
    const provider = providerOf(input.params);
    const outcome = await acceptSamlResponse(ctx.service, flow, provider, input.body.SAMLResponse);
    if (outcome.ok) return { type: 'location_change', to: outcome.redirectTo };
    await recordSsoRefusal(ctx, {
      method: 'saml',
      provider,
      reason: outcome.reason,
      identityId: outcome.identityId,
    });
    return { type: 'flow_updated', messages: outcome.messages };
  },
};

const finish: StrategyCallback = {
  method: 'GET',
  path: SAML_FINISH_PATH,
  sameBrowser: true,
  flowId: (input) => (flowIdPattern.test(input.query.flow ?? '') ? input.query.flow : undefined),
  async handle(flow, input, ctx) {
    const provider = providerOf(input.params);
    const outcome = await finishSamlLogin(ctx.service, flow, provider);
    if (outcome.ok)
      return { type: 'success', identityId: outcome.identityId, method: 'saml', provider: outcome.provider };
    await recordSsoRefusal(ctx, {
      method: 'saml',
      provider,
      reason: outcome.reason,
      identityId: outcome.identityId,
    });
    return { type: 'flow_updated', messages: outcome.messages };
  },
};

export const samlLogin: Strategy = {
  method: 'saml',
  group: 'saml',
  browserOnly: true,
  accepts: (flow) => flow.requested_aal !== 'aal2',
  nodes: () => [],
  async submit(flow, input, { service }) {
    const id = input.provider;
    if (typeof id !== 'string' || id === '')
      return {
        type: 'flow_updated',
        messages: [{ pointer: '#/provider', message: messages.required('provider') as UiText }],
      };
    let provider;
    try {
      provider = await oidcServices(service).directory.get(id);
    } catch {
      return {
        type: 'flow_updated',
        messages: [{ pointer: '#/', message: messages.refusal(samlKey.unreachable) }],
      };
    }
    if (provider?.protocol !== 'saml')
      return {
        type: 'flow_updated',
        messages: [{ pointer: '#/', message: messages.refusal(samlKey.unknownProvider) }],
      };
    const started = await startSamlLogin(service, flow, provider);
    return started.ok
      ? { type: 'location_change', to: started.redirectTo }
      : { type: 'flow_updated', messages: started.messages };
  },
  callbacks: [acs, finish],
};
