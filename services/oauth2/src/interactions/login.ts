import { z } from 'zod';
import type { OAuth2Runtime } from '../context.ts';
import { OAuth2Error } from '../errors.ts';
import {
  clientView,
  epochTime,
  loadPendingInteraction,
  oidcContext,
  rejectionResult,
  saveInteraction,
  splitScope,
} from './challenge.ts';
import { rememberSessionBinding } from './grant-binding.ts';
import { resumeRedirect } from './resume-verifier.ts';

/** Hydra's login request: GET, PUT accept, PUT reject (`/admin/oauth2/auth/requests/login`). */

const LoginAcceptBody = z.object({
  subject: z.string().min(1).max(255),
  remember: z.boolean().optional(),
  remember_for: z.number().int().min(0).optional(),
  acr: z.string().max(255).optional(),
  amr: z.array(z.string().max(64)).max(20).optional(),
  context: z.record(z.string(), z.unknown()).optional(),
  identity_provider_session_id: z.string().max(255).optional(),
  force_subject_identifier: z.string().optional(),
  extend_session_lifespan: z.boolean().optional(),
});

const RejectBody = z.object({
  error: z.string().max(128).optional(),
  error_description: z.string().max(1000).optional(),
  error_hint: z.string().max(1000).optional(),
  error_debug: z.string().max(1000).optional(),
  status_code: z.number().int().optional(),
});

export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body ?? {});
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue?.path.length ? ` (${issue.path.join('.')})` : '';
    throw OAuth2Error.invalidRequest(`The request body is invalid${where}.`);
  }
  return result.data;
}

export async function getLoginRequest(rt: OAuth2Runtime, challenge: string) {
  const { interaction, requestUrl } = await loadPendingInteraction(rt, challenge, 'login');
  const params = interaction.params;
  return {
    challenge,
    skip: false,
    subject: interaction.session?.accountId ?? '',
    client: await clientView(rt, params.client_id),
    request_url: requestUrl,
    requested_scope: splitScope(params.scope),
    requested_access_token_audience: [],
    oidc_context: oidcContext(params),
    session_id: interaction.session?.uid ?? '',
  };
}

export async function acceptLoginRequest(rt: OAuth2Runtime, challenge: string, rawBody: unknown) {
  const body = parseBody(LoginAcceptBody, rawBody);
  const { interaction } = await loadPendingInteraction(rt, challenge, 'login');
  interaction.result = {
    login: {
      accountId: body.subject,
      remember: body.remember ?? false,
      ts: epochTime(),
      ...(body.acr ? { acr: body.acr } : {}),
      ...(body.amr ? { amr: body.amr } : {}),
      // Carried to the consent request through `lastSubmission`.
      loginChallenge: challenge,
      identityProviderSessionId: body.identity_provider_session_id ?? '',
      context: body.context ?? {},
    },
  };
  await saveInteraction(interaction);
  await rememberSessionBinding(rt, interaction.session?.uid, {
    identitySessionId: body.identity_provider_session_id ?? '',
    subject: body.subject,
  });
  return { redirect_to: await resumeRedirect(rt, interaction, 'login') };
}

/** PUT `…/{login,consent}/reject`: the browser lands on `redirect_uri?error=…`. */
export async function rejectPendingRequest(
  rt: OAuth2Runtime,
  challenge: string,
  rawBody: unknown,
  prompt: 'login' | 'consent',
) {
  const body = parseBody(RejectBody, rawBody);
  const { interaction } = await loadPendingInteraction(rt, challenge, prompt);
  interaction.result = rejectionResult(body);
  await saveInteraction(interaction);
  return { redirect_to: await resumeRedirect(rt, interaction, prompt) };
}

export async function rejectLoginRequest(rt: OAuth2Runtime, challenge: string, rawBody: unknown) {
  return rejectPendingRequest(rt, challenge, rawBody, 'login');
}
