import {
  ACCOUNT_DEACTIVATED_MESSAGE_ID,
  SSO_MANAGED_MESSAGE_ID,
  TRUSTED_NETWORKS_MESSAGE_ID,
} from '../../constants.ts';
import { copy } from '../../copy.ts';
import { HttpError } from '../errors/http-error.ts';
import { getErrorMessage } from '../errors/get-error-message.ts';

// The single dispatcher for identity-service errors (Ory Elements style): known error ids first,
// then the HTTP status. Callers handle each outcome; `overrides` replaces the outcome of specific ids.

export type FlowErrorAction =
  | { type: 'rerender'; flow: unknown }
  | { type: 'restart'; reason: string }
  | { type: 'redirect'; url: string }
  | { type: 'home' }
  | { type: 'unauthorized' }
  | { type: 'error'; message: string };

const RESTART_IDS = new Set([
  'self_service_flow_expired',
  'security_csrf_violation',
  'security_identity_mismatch',
  'self_service_flow_return_to_forbidden',
  'self_service_flow_replaced',
]);
const REDIRECT_IDS = new Set([
  'browser_location_change_required',
  'session_aal2_required',
  'session_refresh_required',
]);

interface KratosErrorBody {
  error?: { id?: string; message?: string; reason?: string };
  redirect_browser_to?: string;
  ui?: unknown;
  id?: string;
  continue_with?: { action?: string; flow?: { url?: string } }[];
}

export function errorId(error: unknown): string | undefined {
  if (!(error instanceof HttpError)) return undefined;
  return (error.body as KratosErrorBody | null)?.error?.id;
}

export function classifyFlowError(error: unknown): FlowErrorAction {
  if (!(error instanceof HttpError)) return { type: 'error', message: getErrorMessage(error) };
  const body = (error.body ?? {}) as KratosErrorBody;
  const id = body.error?.id;
  if (id === 'session_already_available') return { type: 'home' };
  if (id && REDIRECT_IDS.has(id) && body.redirect_browser_to)
    return { type: 'redirect', url: body.redirect_browser_to };
  if (id && RESTART_IDS.has(id)) return { type: 'restart', reason: id };
  switch (error.status) {
    case 400: {
      // A sign-in refused until the address is proven carries the verification flow to show.
      const verify = body.continue_with?.find((c) => c.action === 'show_verification_ui')?.flow?.url;
      if (body.ui && verify) return { type: 'redirect', url: verify };
      if (body.ui) return { type: 'rerender', flow: body };
      break;
    }
    case 401:
      return { type: 'unauthorized' };
    case 403:
      return { type: 'restart', reason: 'forbidden' };
    case 404:
    case 410:
      return { type: 'restart', reason: error.status === 404 ? 'not_found' : 'expired' };
    case 422:
      if (body.redirect_browser_to) return { type: 'redirect', url: body.redirect_browser_to };
      break;
  }
  return { type: 'error', message: getErrorMessage(error) };
}

export interface FlowErrorHandlers<F> {
  rerender: (flow: F) => void;
  restart: (reason: string) => void;
  redirect?: (url: string) => void;
  home: () => void;
  unauthorized?: () => void;
  error: (message: string) => void;
  overrides?: Record<string, () => void>;
}

export function handleFlowError<F>(error: unknown, handlers: FlowErrorHandlers<F>): FlowErrorAction {
  const id = errorId(error);
  const override = id ? handlers.overrides?.[id] : undefined;
  const action = classifyFlowError(error);
  if (override) {
    override();
    return action;
  }
  switch (action.type) {
    case 'rerender':
      handlers.rerender(action.flow as F);
      break;
    case 'restart':
      handlers.restart(action.reason);
      break;
    case 'redirect':
      if (handlers.redirect) handlers.redirect(action.url);
      else window.location.href = action.url;
      break;
    case 'home':
      handlers.home();
      break;
    case 'unauthorized':
      if (handlers.unauthorized) handlers.unauthorized();
      else handlers.restart('unauthorized');
      break;
    case 'error':
      handlers.error(action.message);
      break;
  }
  return action;
}

/**
 * Server messages that judge what the user typed (wrong credentials, wrong code, a password the
 * policy refuses): they stay on the form, next to the input. Every other error message of a flow
 * (a lockout, an expired flow, a code sent too often, a method that cannot be used) is not something
 * the user can fix by retyping, so it goes to a toast ("Action could not be completed", 60 s).
 */
const FORM_MESSAGE_IDS: ReadonlySet<number> = new Set([
  4000002, // a required property is missing
  4000005, // the password cannot be used
  4000006, // invalid credentials
  4000008, // invalid authentication code
  4000012, // backup code already used
  4000016, // backup code not valid
  4000031, // password too similar to the identifier
  4000032, // password too short
  4000034, // password found in data breaches
  4010090, // the address's organisation enforces SSO: no password sign-in or recovery (names SSO)
  TRUSTED_NETWORKS_MESSAGE_ID,
  4060006, // invalid recovery code
  4070006, // invalid verification code
]);

/** Server messages the app words itself (copy.ts). */
const APP_TEXT: Readonly<Record<number, () => string>> = {
  [TRUSTED_NETWORKS_MESSAGE_ID]: () => copy.errors.networkNotTrusted,
  [ACCOUNT_DEACTIVATED_MESSAGE_ID]: () => copy.errors.accountDeactivated,
  [SSO_MANAGED_MESSAGE_ID]: () => copy.settings.ssoManaged,
};

/** The app's own words for a server message it words itself (copy.ts), else undefined. */
export function appWordedText(id: number): string | undefined {
  return APP_TEXT[id]?.();
}

interface MessageLike {
  id: number;
  type: string;
  text: string;
}
interface NodeLike {
  attributes: unknown;
  messages?: MessageLike[];
}
interface FlowLike {
  ui: { messages?: MessageLike[]; nodes: NodeLike[] };
}

export interface RoutedMessages {
  /** Messages shown on the form (an alert above the submit button). */
  form: string[];
  /** Messages of the named inputs, shown under each input. */
  fields: Record<string, string[]>;
  /** Messages for a toast: every error message, placed elsewhere too or not. */
  toasts: string[];
}

/**
 * Where each error message of a flow goes: every server message of type error is a toast (login,
 * recovery and settings flows alike); where it helps, it is also shown beside what it is about: a
 * message of one of `fields` under that input, a message about the user's input on the form.
 */
export function routeFlowMessages(flow: FlowLike, fields: readonly string[] = []): RoutedMessages {
  const routed: RoutedMessages = { form: [], fields: {}, toasts: [] };
  const place = (message: MessageLike, field?: string) => {
    if (message.type !== 'error') return;
    const m = { ...message, text: appWordedText(message.id) ?? message.text };
    routed.toasts.push(m.text);
    if (field && fields.includes(field)) (routed.fields[field] ??= []).push(m.text);
    else if (FORM_MESSAGE_IDS.has(m.id) || field) routed.form.push(m.text);
  };
  for (const m of flow.ui.messages ?? []) place(m);
  for (const node of flow.ui.nodes) {
    const name = (node.attributes as { name?: unknown }).name;
    for (const m of node.messages ?? []) place(m, typeof name === 'string' ? name : '');
  }
  return routed;
}
