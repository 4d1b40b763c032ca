import { useState } from 'react';
import { consoleApi, type Me, type SecurityEvent } from './console-client.ts';
import { consoleCopy as t } from './copy.ts';
import { EMPTY_FILTERS, EVENT_TYPES, selectEventQuery, type EventFilters } from './select-event-query.ts';
import { failure, formatDate, useLoad } from './use-load.ts';

function actorOf(event: SecurityEvent, names: Map<string, string>): string {
  if (event.actorKind === 'operator') return t.events.operator;
  if (event.actorKind === 'system') return t.events.system;
  // A SCIM request: the organisation's directory, through one of its tokens (never a person).
  if (event.actorKind === 'directory') return t.events.directory;
  return (event.actorId && names.get(event.actorId)) ?? event.actorId ?? '—';
}

export function EventsSection({ me }: { me: Me }) {
  const [form, setForm] = useState<EventFilters>(EMPTY_FILTERS);
  const [filters, setFilters] = useState<EventFilters>(EMPTY_FILTERS);
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors.at(-1) ?? null;
  const [page] = useLoad(`${JSON.stringify(filters)}|${cursor}`, () =>
    consoleApi.events(me.organisationId, selectEventQuery(filters, { cursor })),
  );
  const [people] = useLoad('people', () => consoleApi.members(me.organisationId, { page: 1, pageSize: 100 }));
  const names = new Map(
    people.state === 'ready'
      ? people.value.members.map((m) => [m.id, `${m.firstName} ${m.lastName}`] as const)
      : [],
  );
  const [exportError, setExportError] = useState<string | null>(null);

  async function exportCsv() {
    setExportError(null);
    try {
      const csv = await consoleApi.eventsCsv(me.organisationId, selectEventQuery(filters, null));
      const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = 'security-events.csv';
      a.click();
      URL.revokeObjectURL(url);
    } catch (error) {
      setExportError(failure(error).message);
    }
  }

  return (
    <section aria-labelledby="events-title">
      <h2 id="events-title">{t.sections.events}</h2>
      <form
        className="row console-filters"
        onSubmit={(event) => {
          event.preventDefault();
          setFilters(form);
          setCursors([null]);
        }}
      >
        <div className="field">
          <label htmlFor="events-person">{t.events.person}</label>
          <select
            id="events-person"
            value={form.person}
            onChange={(e) => setForm({ ...form, person: e.target.value })}
          >
            <option value="">{t.events.anyPerson}</option>
            {[...names].map(([id, name]) => (
              <option key={id} value={id}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="events-type">{t.events.type}</label>
          <select
            id="events-type"
            value={form.type}
            onChange={(e) => setForm({ ...form, type: e.target.value })}
          >
            <option value="">{t.events.anyType}</option>
            {EVENT_TYPES.map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="events-from">{t.events.from}</label>
          <input
            id="events-from"
            type="datetime-local"
            value={form.from}
            onChange={(e) => setForm({ ...form, from: e.target.value })}
          />
        </div>
        <div className="field">
          <label htmlFor="events-to">{t.events.to}</label>
          <input
            id="events-to"
            type="datetime-local"
            value={form.to}
            onChange={(e) => setForm({ ...form, to: e.target.value })}
          />
        </div>
        <button type="submit" className="button secondary">
          {t.events.apply}
        </button>
        <button type="button" className="button secondary" onClick={() => void exportCsv()}>
          {t.events.export}
        </button>
      </form>
      {exportError ? <p role="alert">{exportError}</p> : null}
      {page.state === 'loading' ? <p role="status">{t.loading}</p> : null}
      {page.state === 'error' ? <p role="alert">{t.loadFailed(page.message)}</p> : null}
      {page.state === 'ready' && page.value.events.length === 0 ? <p>{t.empty.events}</p> : null}
      {page.state === 'ready' && page.value.events.length > 0 ? (
        <table className="console-table">
          <thead>
            <tr>
              <th scope="col">{t.events.time}</th>
              <th scope="col">{t.events.type}</th>
              <th scope="col">{t.events.actor}</th>
              <th scope="col">{t.events.subject}</th>
              <th scope="col">{t.events.ip}</th>
              <th scope="col">{t.events.details}</th>
            </tr>
          </thead>
          <tbody>
            {page.value.events.map((e) => (
              <tr key={e.id}>
                <td data-label={t.events.time}>{formatDate(e.occurredAt)}</td>
                <td data-label={t.events.type}>{e.type}</td>
                <td data-label={t.events.actor}>{actorOf(e, names)}</td>
                <td data-label={t.events.subject}>
                  {(e.subjectId && names.get(e.subjectId)) ?? e.subjectId ?? '—'}
                </td>
                <td data-label={t.events.ip}>{e.ip ?? '—'}</td>
                <td data-label={t.events.details}>
                  {Object.entries(e.details)
                    .map(([k, v]) => `${k}: ${v}`)
                    .join(', ')}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <nav className="row" aria-label={t.events.more}>
        <button
          type="button"
          className="button secondary"
          disabled={cursors.length <= 1}
          onClick={() => setCursors(cursors.slice(0, -1))}
        >
          {t.members.previous}
        </button>
        <button
          type="button"
          className="button secondary"
          disabled={page.state !== 'ready' || page.value.nextCursor === null}
          onClick={() => page.state === 'ready' && setCursors([...cursors, page.value.nextCursor])}
        >
          {t.events.more}
        </button>
      </nav>
    </section>
  );
}
