import type { SettingsFlow, UiNode } from '../../shared/identity-client/types.ts';
import { backupCodesOf } from '../../shared/totp/use-backup-codes.ts';

// The two-factor section from the settings flow's nodes (what the identity service offers is what
// the page shows): whether an authenticator app is linked, and the backup codes' state.

export interface TwoFactorView {
  totp: 'on' | 'off';
  /** Backup codes: how many are left, or null when there is no set. */
  backupCodesLeft: number | null;
  /** Whether backup codes can be made (they need the authenticator app). */
  canMakeBackupCodes: boolean;
}

const nodeName = (n: UiNode) => (n.attributes as { name?: string; id?: string }).name;
const nodeId = (n: UiNode) => (n.attributes as { id?: string }).id;

export function selectTwoFactor(flow: Pick<SettingsFlow, 'ui'> | null): TwoFactorView {
  const nodes = flow?.ui.nodes ?? [];
  const totp = nodes.some((n) => nodeName(n) === 'totp_unlink') ? 'on' : 'off';
  const remaining = nodes.find((n) => nodeId(n) === 'lookup_secret_remaining');
  const context = (remaining?.attributes as { text?: { context?: { remaining?: unknown } } } | undefined)
    ?.text?.context;
  const left = typeof context?.remaining === 'number' ? context.remaining : null;
  return {
    totp,
    backupCodesLeft: left,
    canMakeBackupCodes: nodes.some((n) => nodeName(n) === 'lookup_secret_regenerate'),
  };
}

/** The codes an answer to "make new backup codes" shows (once; they are stored nowhere in plain text). */
export const selectNewBackupCodes = backupCodesOf;
