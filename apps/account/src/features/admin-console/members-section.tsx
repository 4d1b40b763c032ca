import { useState } from 'react';
import { CONSOLE_PATHS } from '../../shared/config/paths.ts';
import { Link } from '../../shared/ui/link.tsx';
import { consoleApi, type Me } from './console-client.ts';
import { consoleCopy as t } from './copy.ts';
import { formatDate, formatNumber, useLoad } from './use-load.ts';

const PAGE_SIZE = 25;

export function MembersSection({ me }: { me: Me }) {
  const [query, setQuery] = useState('');
  const [applied, setApplied] = useState('');
  const [page, setPage] = useState(1);
  const [list] = useLoad(`${applied}|${page}`, () =>
    consoleApi.members(me.organisationId, { q: applied || undefined, page, pageSize: PAGE_SIZE }),
  );
  const pages = list.state === 'ready' ? Math.max(1, Math.ceil(list.value.total / PAGE_SIZE)) : 1;
  return (
    <section aria-labelledby="members-title">
      <h2 id="members-title">{t.sections.members}</h2>
      <form
        role="search"
        className="console-search"
        onSubmit={(event) => {
          event.preventDefault();
          setApplied(query.trim());
          setPage(1);
        }}
      >
        <label className="field">
          <span>{t.members.search}</span>
          <input type="search" value={query} onChange={(e) => setQuery(e.target.value)} />
        </label>
        <button type="submit" className="button secondary">
          {t.members.searchButton}
        </button>
      </form>
      {list.state === 'loading' ? <p role="status">{t.loading}</p> : null}
      {list.state === 'error' ? <p role="alert">{t.loadFailed(list.message)}</p> : null}
      {list.state === 'ready' && list.value.members.length === 0 ? <p>{t.empty.members}</p> : null}
      {list.state === 'ready' && list.value.members.length > 0 ? (
        <>
          <p className="muted">{t.members.total(formatNumber(list.value.total))}</p>
          <table className="console-table">
            <thead>
              <tr>
                <th scope="col">{t.members.name}</th>
                <th scope="col">{t.members.email}</th>
                <th scope="col">{t.members.role}</th>
                <th scope="col">{t.members.status}</th>
                <th scope="col">{t.members.joined}</th>
              </tr>
            </thead>
            <tbody>
              {list.value.members.map((m) => (
                <tr key={m.id}>
                  <td data-label={t.members.name}>
                    <Link href={`${CONSOLE_PATHS.member}?id=${encodeURIComponent(m.id)}`}>
                      {m.firstName} {m.lastName}
                    </Link>
                  </td>
                  <td data-label={t.members.email}>{m.email}</td>
                  <td data-label={t.members.role}>
                    {t.roles[m.role]}
                    {m.managedBy === 'directory' ? (
                      <>
                        {' '}
                        <span className="badge">{t.scim.managedByDirectory}</span>
                      </>
                    ) : null}
                  </td>
                  <td data-label={t.members.status}>{t.status[m.status]}</td>
                  <td data-label={t.members.joined}>{formatDate(m.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <nav className="console-pager" aria-label={t.members.page(formatNumber(page), formatNumber(pages))}>
            <button
              type="button"
              className="button secondary"
              disabled={page <= 1}
              onClick={() => setPage(page - 1)}
            >
              {t.members.previous}
            </button>
            <span>{t.members.page(formatNumber(page), formatNumber(pages))}</span>
            <button
              type="button"
              className="button secondary"
              disabled={page >= pages}
              onClick={() => setPage(page + 1)}
            >
              {t.members.next}
            </button>
          </nav>
        </>
      ) : null}
    </section>
  );
}
