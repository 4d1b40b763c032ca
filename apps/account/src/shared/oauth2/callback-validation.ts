import { copy } from '../../copy.ts';

// The callback URL must carry a code and no error, and its state must match the stored one.

export type CallbackValidation = { ok: true; code: string } | { ok: false; message: string };

export function validateCallback(
  query: { code?: string; state?: string; error?: string; error_description?: string },
  storedState: string | null,
): CallbackValidation {
  if (query.error)
    return { ok: false, message: copy.errors.oauth2(query.error, query.error_description ?? '') };
  if (!query.code) return { ok: false, message: copy.errors.missingCode };
  if (!storedState || query.state !== storedState) return { ok: false, message: copy.errors.stateMismatch };
  return { ok: true, code: query.code };
}
