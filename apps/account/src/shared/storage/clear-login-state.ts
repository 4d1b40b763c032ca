import { loginStateEntries } from './registry.ts';
import { remove } from './storage.ts';

/** Clears every piece of local login state, the OAuth2 token included. */
export function clearLoginState(): void {
  for (const entry of loginStateEntries) remove(entry);
}
