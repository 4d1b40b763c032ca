import { useState } from 'react';
import { HttpError } from '../../shared/errors/http-error.ts';
import { consoleApi, type Me } from './console-client.ts';
import { consoleCopy as t } from './copy.ts';
import { decideSaveFailure, decideTrustedNetworksForm } from './decide-trusted-networks.ts';
import { failure, formatDate, formatNumber, useLoad } from './use-load.ts';
import { Loadable } from './loadable.tsx';
import { NoticeLine, type Notice } from './token-list.tsx';

/** Trusted networks (ManageIPWhitelist): the organisation's allow-list of CIDR ranges. */
export function NetworksSection({ me }: { me: Me }) {
  const [current, reload] = useLoad('trusted-networks', () => consoleApi.trustedNetworks(me.organisationId));
  // null until the admin edits: the saved ranges are shown.
  const [edited, setEdited] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<{ ranges: string[]; address: string } | null>(null);
  const [notice, setNotice] = useState<Notice>(null);
  const [busy, setBusy] = useState(false);
  const text = edited ?? (current.state === 'ready' ? current.value.ranges.join('\n') : '');

  async function save(ranges: string[], confirmLockout: boolean) {
    setBusy(true);
    try {
      const saved = await consoleApi.setTrustedNetworks(me.organisationId, { ranges, confirmLockout });
      setConfirming(null);
      setEdited(null);
      setNotice({ text: t.networks.saved(saved.ranges.length) });
      reload();
    } catch (error) {
      const decision = decideSaveFailure({
        ...failure(error),
        body: error instanceof HttpError ? error.body : null,
      });
      if (decision.type === 'confirm') setConfirming({ ranges, address: decision.address });
      else setNotice({ error: decision.message });
    } finally {
      setBusy(false);
    }
  }

  function submit() {
    const decision = decideTrustedNetworksForm(text);
    if (!decision.ok) {
      setNotice({ error: decision.error });
      return;
    }
    setNotice(null);
    void save(decision.ranges, false);
  }

  return (
    <section aria-labelledby="networks-title">
      <h2 id="networks-title">{t.sections.networks}</h2>
      <p>{t.networks.intro}</p>
      <Loadable loaded={current}>
        {(networks) => (
          <>
            <p data-testid="your-address">{t.networks.yourAddress(networks.yourAddress)}</p>
            <p>
              {networks.ranges.length === 0
                ? t.networks.none
                : t.networks.count(formatNumber(networks.ranges.length))}
              {networks.updatedAt ? ` ${t.networks.lastChanged(formatDate(networks.updatedAt))}` : null}
            </p>
            <form
              className="console-form"
              onSubmit={(event) => {
                event.preventDefault();
                submit();
              }}
            >
              <label htmlFor="trusted-ranges">{t.networks.rangesLabel}</label>
              <textarea
                id="trusted-ranges"
                name="ranges"
                rows={6}
                spellCheck={false}
                aria-describedby="trusted-ranges-hint"
                value={text}
                onChange={(e) => setEdited(e.target.value)}
              />
              <p id="trusted-ranges-hint" className="hint">
                {t.networks.rangesHint}
              </p>
              <button type="submit" className="button" disabled={busy}>
                {t.networks.save}
              </button>
            </form>
          </>
        )}
      </Loadable>
      <NoticeLine notice={notice} />
      {confirming ? (
        <div role="alertdialog" aria-labelledby="networks-confirm-text" className="notice">
          <p id="networks-confirm-text">{t.networks.confirmLockout(confirming.address)}</p>
          <div className="row">
            <button
              type="button"
              className="button"
              disabled={busy}
              onClick={() => void save(confirming.ranges, true)}
            >
              {t.networks.confirm}
            </button>
            <button type="button" className="button secondary" autoFocus onClick={() => setConfirming(null)}>
              {t.networks.cancel}
            </button>
          </div>
        </div>
      ) : null}
    </section>
  );
}
