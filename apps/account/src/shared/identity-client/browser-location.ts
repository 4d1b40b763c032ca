import { HttpError, requestJson } from '../errors/http-error.ts';

// A flow submission whose answer is a browser location change (Kratos' 422
// `browser_location_change_required`): single sign-on. The app submits as JSON and then leaves by
// a top-level navigation to `redirect_browser_to`, so the app's CSP `form-action` never has to
// list an organisation's identity provider: a provider an org-admin sets up works at once.

/** The `redirect_browser_to` of a 422 answer, if it is an http(s) URL; else null. */
export function browserLocationOf(error: unknown): string | null {
  if (!(error instanceof HttpError) || error.status !== 422) return null;
  const to = (error.body as { redirect_browser_to?: unknown } | null)?.redirect_browser_to;
  if (typeof to !== 'string') return null;
  try {
    const url = new URL(to);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : null;
  } catch {
    return null;
  }
}

/** Submits `fields` to the flow's `action` as JSON and answers where the browser must go. */
export async function submitForBrowserLocation(
  action: string,
  fields: Record<string, string>,
): Promise<string> {
  try {
    await requestJson(action, { method: 'POST', credentials: 'include', body: fields });
  } catch (error) {
    const to = browserLocationOf(error);
    if (to) return to;
    throw error;
  }
  throw new HttpError(200, 'OK', {
    message: 'The identity service did not answer with a location to go to.',
  });
}
