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
    case 400:
      if (body.ui) return { type: 'rerender', flow: body };
      break;
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
