import { HttpError } from '../errors/http-error.ts';

// After a correct recovery or invitation code the identity service hands over a settings flow.

/** The settings flow id after a correct code: from the 422 redirect (`?flow=`) or continue_with. */
export function settingsFlowIdFrom(body: unknown): string | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as {
    redirect_browser_to?: unknown;
    continue_with?: { action?: string; flow?: { id?: string } }[];
  };
  const fromContinue = b.continue_with?.find((c) => c.action === 'show_settings_ui')?.flow?.id;
  if (fromContinue) return fromContinue;
  if (typeof b.redirect_browser_to === 'string') {
    try {
      return new URL(b.redirect_browser_to).searchParams.get('flow');
    } catch {
      return null;
    }
  }
  return null;
}

/** The same, from a failed submit: Kratos answers a correct code for a browser flow with a 422 redirect. */
export function settingsFlowIdFromError(error: unknown): string | null {
  return error instanceof HttpError ? settingsFlowIdFrom(error.body) : null;
}
