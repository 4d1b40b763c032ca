import { useState } from 'react';
import { consoleApi, type Me } from './console-client.ts';
import { consoleCopy as t } from './copy.ts';
import { failure, useLoad } from './use-load.ts';
import { NoticeLine, type Notice } from './token-list.tsx';

/**
 * How many days the organisation's security events are kept (ManageOrganisationSettings, like the
 * log itself): one number, empty for the service's retention, which also bounds it.
 */
export function EventRetentionForm({ me }: { me: Me }) {
  const [current, reload] = useLoad('event-retention', () => consoleApi.eventRetention(me.organisationId));
  const [days, setDays] = useState<string | null>(null);
  const [notice, setNotice] = useState<Notice>(null);
  if (current.state !== 'ready') return null;
  const { retentionDays, serviceRetentionDays } = current.value;
  const shown = days ?? (retentionDays === null ? '' : String(retentionDays));

  async function save() {
    setNotice(null);
    try {
      await consoleApi.setEventRetention(me.organisationId, {
        retentionDays: shown.trim() === '' ? null : Number(shown),
      });
      setDays(null);
      setNotice({ text: t.events.retentionSaved });
      reload();
    } catch (error) {
      setNotice({ error: failure(error).message });
    }
  }

  return (
    <form
      className="row wrap"
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <div className="field">
        <label htmlFor="events-retention">{t.events.retentionLabel}</label>
        <input
          id="events-retention"
          type="number"
          min={1}
          max={serviceRetentionDays}
          value={shown}
          aria-describedby="events-retention-now"
          onChange={(e) => setDays(e.target.value)}
        />
      </div>
      <button type="submit">{t.events.retentionSave}</button>
      <p id="events-retention-now">
        {retentionDays === null
          ? t.events.retentionService(serviceRetentionDays)
          : t.events.retentionOwn(retentionDays, serviceRetentionDays)}{' '}
        {t.events.retentionHint(serviceRetentionDays)}
      </p>
      <NoticeLine notice={notice} />
    </form>
  );
}
