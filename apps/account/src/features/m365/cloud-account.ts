import { getConfig } from '../../shared/config/env.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read } from '../../shared/storage/storage.ts';

/**
 * Whether a Microsoft account is still signed in in this browser (MSAL's accounts), whatever the
 * token's mode. False without an m365 set-up, and inside Teams, where the Teams host's rules apply:
 * the host owns the Microsoft sign-in, and the app never signs it out (docs/security.md). MSAL is
 * loaded only when there is something to ask; a failure to load it counts as no account.
 */
export async function cloudAccountSignedIn(): Promise<boolean> {
  const m365 = getConfig().m365;
  if (!m365 || read(registry.isTeams) === true) return false;
  try {
    const { getMsalInstance, hasCloudAccount } = await import('./msal-client.ts');
    return hasCloudAccount(await getMsalInstance(m365));
  } catch {
    return false;
  }
}
