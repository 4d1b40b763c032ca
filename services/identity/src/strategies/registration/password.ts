import type { FlowRow } from '../../db/schema.ts';
import type { Outcome } from '../../flows/outcome.ts';
import type { Strategy, StrategyContext } from '../../flows/strategy.ts';
import { checkPasswordPolicy, MAX_PASSWORD_BYTES } from '../../password/policy.ts';
import { errors } from '../../errors/identity-error.ts';
import { BUDGET_SCOPE, takeBudget } from '../../throttle/attempts.ts';
import { messages } from '../../ui/messages.ts';
import { passwordRegistrationNodes, type FieldMessage } from '../../ui/nodes.ts';
import { SignUpRefused, signUpMember } from './sign-up-directory.ts';

/**
 * Registration with a password (Kratos's `password` method on registration flows): `traits.email`,
 * `traits.name.first|last` and `password`, as JSON (`{traits: {…}}`) or a form (`traits.email=…`).
 * Only addresses in a domain whose organisation opened self sign-up are accepted; the user service
 * decides that, then creates the member and the identity (decision in docs/security.md).
 */
export const passwordRegistration: Strategy = {
  method: 'password',
  group: 'password',
  nodes: () => passwordRegistrationNodes(),
  submit: (flow, input, ctx) => submitRegistration(flow, input, ctx),
};

/** Retry-After of a sign-up the user service could not complete in time. */
const SIGN_UP_RETRY_AFTER_SECONDS = 5;

const EMAIL = /^[^\s@]+@[a-z0-9.-]+\.[a-z]{2,}$/i;

/** A trait from the JSON object (`traits.name.first`) or the form's dotted name. */
function trait(body: Record<string, unknown>, path: string[]): unknown {
  const dotted = body[`traits.${path.join('.')}`];
  if (dotted !== undefined) return dotted;
  let v: unknown = body.traits;
  for (const key of path)
    v = v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[key] : undefined;
  return v;
}

async function submitRegistration(
  _flow: FlowRow,
  body: Record<string, unknown>,
  ctx: StrategyContext,
): Promise<Outcome> {
  const email = trait(body, ['email']);
  const first = trait(body, ['name', 'first']);
  const last = trait(body, ['name', 'last']);
  const { password } = body;
  const values: Record<string, string> = {};
  if (typeof email === 'string') values['traits.email'] = email;
  if (typeof first === 'string') values['traits.name.first'] = first;
  if (typeof last === 'string') values['traits.name.last'] = last;
  const refuse = (list: FieldMessage[]): Outcome => ({ type: 'flow_updated', messages: list, values });

  const missing: FieldMessage[] = [];
  const need = (v: unknown, pointer: string, property: string) => {
    if (typeof v !== 'string' || v.trim() === '')
      missing.push({ pointer, message: messages.required(property) });
  };
  need(email, '#/traits/email', 'email');
  need(first, '#/traits/name/first', 'first');
  need(last, '#/traits/name/last', 'last');
  need(password, '#/password', 'password');
  if (missing.length) return refuse(missing);
  const address = (email as string).trim().toLowerCase();
  if (address.length > 254 || !EMAIL.test(address))
    return refuse([{ pointer: '#/traits/email', message: messages.invalidEmail(address) }]);
  for (const [v, pointer] of [
    [first, '#/traits/name/first'],
    [last, '#/traits/name/last'],
  ] as const) {
    if ((v as string).trim().length > 100) return refuse([{ pointer, message: messages.nameTooLong(100) }]);
  }
  const secret = password as string;
  if (Buffer.byteLength(secret, 'utf8') > MAX_PASSWORD_BYTES)
    return refuse([
      {
        pointer: '#/password',
        message: messages.passwordTooLong(MAX_PASSWORD_BYTES),
      },
    ]);
  const weak = checkPasswordPolicy(secret, address);
  if (weak) return refuse([{ pointer: '#/password', message: weak }]);

  // Counted per client IP before the user service is asked (parallel submissions included): mass
  // account creation, and probing which addresses of an open domain have accounts (4000007).
  const budget = await takeBudget(ctx.service.db, BUDGET_SCOPE.registrationIp, ctx.client.ip, ctx.now, {
    limit: ctx.service.config.registrationIpLimit.limit,
    windowMs: ctx.service.config.registrationIpLimit.windowMs,
  });
  if (!budget.allowed) return { type: 'error', error: errors.tooManySignUps(budget.retryAfterSec) };

  let member: { identityId: string };
  try {
    member = await signUpMember(ctx.service, {
      email: address,
      firstName: (first as string).trim(),
      lastName: (last as string).trim(),
      password: secret,
    });
  } catch (e) {
    // Too slow (the upstream timeout) or failing: a 503 to retry, never a 500. The budget stays spent.
    if (!(e instanceof SignUpRefused))
      return { type: 'error', error: errors.signUpUnavailable(SIGN_UP_RETRY_AFTER_SECONDS) };
    // The domain check comes first in the user service: a duplicate is only ever reported for an
    // address in an open domain, where Kratos reports it too (4000007).
    if (e.errorCode === 'USER_EXISTS')
      return refuse([{ pointer: '#/', message: messages.duplicateAccount() }]);
    if (e.errorCode === 'IDENTITY_REJECTED')
      return refuse([{ pointer: '#/password', message: messages.passwordRefused() }]);
    return refuse([{ pointer: '#/traits/email', message: messages.signUpNotOpen() }]);
  }
  return { type: 'success', identityId: member.identityId, method: 'password' };
}
