import { useState, type ReactNode } from 'react';
import { consoleApi, type Me, type SecurityEvent } from './console-client.ts';
import { consoleCopy as t } from './copy.ts';
import { EventRetentionForm } from './event-retention-form.tsx';
import { EMPTY_FILTERS, EVENT_TYPES, selectEventQuery, type EventFilters } from './select-event-query.ts';
import { failure, formatDate, useLoad } from './use-load.ts';
import { ConsoleTable } from './console-table.tsx';
import { Loadable } from './loadable.tsx';

function actorOf(event: SecurityEvent, names: Map<string, string>): string {
  if (event.actorKind === 'operator') return t.events.operator;
  if (event.actorKind === 'system') return t.events.system;
  // A SCIM request: the organisation's directory, through one of its tokens (never a person).
  if (event.actorKind === 'directory') return t.events.directory;
  return (event.actorId && names.get(event.actorId)) ?? event.actorId ?? '—';
}

/** Hands `text` to the browser as a CSV file download. */
function download(text: string, name: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  URL.revokeObjectURL(url);
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
      download(csv, 'security-events.csv');
    } catch (error) {
      setExportError(failure(error).message);
    }
  }

  return (
    <section aria-labelledby="events-title">
      <h2 id="events-title">{t.sections.events}</h2>
      <EventRetentionForm me={me} />
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
      <Loadable loaded={page}>
        {({ events }) =>
          events.length === 0 ? <p>{t.empty.events}</p> : <EventTable events={events} names={names} />
        }
      </Loadable>
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

/** A page of security events: when, what, who did it to whom, from where. */
/** The person an event is about by name, else their id (which may break anywhere). */
function subjectOf(event: SecurityEvent, names: Map<string, string>): ReactNode {
  if (!event.subjectId) return '—';
  return names.get(event.subjectId) ?? <code>{event.subjectId}</code>;
}

function EventTable({ events, names }: { events: SecurityEvent[]; names: Map<string, string> }) {
  return (
    <ConsoleTable
      columns={[
        t.events.time,
        t.events.type,
        t.events.actor,
        t.events.subject,
        t.events.ip,
        t.events.details,
      ]}
      rows={events.map((e) => ({
        key: e.id,
        cells: [
          formatDate(e.occurredAt),
          <code key="type">{e.type}</code>,
          actorOf(e, names),
          subjectOf(e, names),
          e.ip ? <code key="ip">{e.ip}</code> : '—',
          <code key="details">
            {Object.entries(e.details)
              .map(([k, v]) => `${k}: ${v}`)
              .join(', ')}
          </code>,
        ],
      }))}
    />
  );
}
