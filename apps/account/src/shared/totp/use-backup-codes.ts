import { useCallback, useEffect, useState } from 'react';
import { getConfig } from '../config/env.ts';
import { handleFlowError } from '../identity-client/handle-flow-error.ts';
import { createSettingsFlow, submitSettings } from '../identity-client/identity-client.ts';
import { csrfToken } from '../identity-client/nodes.ts';
import type { SettingsFlow } from '../identity-client/types.ts';

export type BackupCodesStatus = 'loading' | 'show' | 'done';

/** The codes of a "make new backup codes" answer (shown once; stored nowhere in plain text). */
export function backupCodesOf(flow: Pick<SettingsFlow, 'ui'>): string[] {
  const node = flow.ui.nodes.find((n) => (n.attributes as { id?: string }).id === 'lookup_secret_codes');
  const secrets = (node?.attributes as { text?: { context?: { secrets?: unknown } } } | undefined)?.text
    ?.context?.secrets;
  if (!Array.isArray(secrets)) return [];
  return secrets
    .map((s) => (s as { text?: unknown }).text)
    .filter((t): t is string => typeof t === 'string' && t.length > 0);
}

/**
 * After a TOTP set-up: makes a set of backup codes in a settings flow (method lookup_secret) and
 * confirms it once the person saved them. Whatever fails here does not block the way on (the
 * codes can be made later on the account page): the step is then simply done.
 */
export function useBackupCodes(enabled: boolean) {
  const [flow, setFlow] = useState<SettingsFlow | null>(null);
  const [codes, setCodes] = useState<string[]>([]);
  const [status, setStatus] = useState<BackupCodesStatus>('loading');
  const [busy, setBusy] = useState(false);

  const giveUp = useCallback((error: unknown) => {
    const done = () => setStatus('done');
    handleFlowError(error, {
      rerender: done,
      restart: done,
      redirect: done,
      home: done,
      unauthorized: done,
      error: done,
    });
  }, []);

  useEffect(() => {
    if (!enabled) return;
    const base = getConfig().identityUrl;
    createSettingsFlow(base)
      .then((created) =>
        submitSettings(base, created.id, {
          method: 'lookup_secret',
          lookup_secret_regenerate: true,
          csrf_token: csrfToken(created),
        }),
      )
      .then((made) => {
        const shown = backupCodesOf(made);
        setFlow(made);
        setCodes(shown);
        setStatus(shown.length > 0 ? 'show' : 'done');
      })
      .catch(giveUp);
  }, [enabled, giveUp]);

  const confirm = useCallback(async () => {
    if (!flow) return;
    setBusy(true);
    try {
      await submitSettings(getConfig().identityUrl, flow.id, {
        method: 'lookup_secret',
        lookup_secret_confirm: true,
        csrf_token: csrfToken(flow),
      });
      setStatus('done');
    } catch (error) {
      giveUp(error);
    } finally {
      setBusy(false);
    }
  }, [flow, giveUp]);

  return { status, codes, busy, confirm };
}
