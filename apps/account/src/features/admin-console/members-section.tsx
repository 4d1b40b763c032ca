import { Address } from '../../shared/ui/address.tsx';
import { useState } from 'react';
import { CONSOLE_PATHS } from '../../shared/config/paths.ts';
import { Link } from '../../shared/ui/link.tsx';
import { consoleApi, type Me } from './console-client.ts';
import { consoleCopy as t } from './copy.ts';
import { formatDate, formatNumber, useLoad } from './use-load.ts';
import { Loading } from '../../shared/ui/progress.tsx';
import { ConsoleTable } from './console-table.tsx';

const PAGE_SIZE = 25;

export function MembersSection({ me }: { me: Me }) {
  const [query, setQuery] = useState('');
  const [applied, setApplied] = useState('');
  const [page, setPage] = useState(1);
  const [list] = useLoad(`${applied}|${page}`, () =>
    consoleApi.members(me.organisationId, { q: applied || undefined, page, pageSize: PAGE_SIZE }),
  );
  const pages = list.state === 'ready' ? Math.max(1, Math.ceil(list.value.total / PAGE_SIZE)) : 1;
  // A broad search stops counting: its total and its last page are floors ("or more").
  const exact = list.state !== 'ready' || list.value.totalExact;
  const pageLabel = (exact ? t.members.page : t.members.pageOfAtLeast)(
    formatNumber(page),
    formatNumber(pages),
  );
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
      {list.state === 'loading' ? <Loading label={t.loading} /> : null}
      {list.state === 'error' ? <p role="alert">{t.loadFailed(list.message)}</p> : null}
      {list.state === 'ready' && list.value.members.length === 0 ? <p>{t.empty.members}</p> : null}
      {list.state === 'ready' && list.value.members.length > 0 ? (
        <>
          <p className="muted">
            {(exact ? t.members.total : t.members.totalAtLeast)(formatNumber(list.value.total))}
          </p>
          <ConsoleTable
            columns={[t.members.name, t.members.email, t.members.role, t.members.status, t.members.joined]}
            rows={list.value.members.map((m) => ({
              key: m.id,
              cells: [
                <Link key="name" href={`${CONSOLE_PATHS.member}?id=${encodeURIComponent(m.id)}`}>
                  {m.firstName} {m.lastName}
                </Link>,
                <Address key="email">{m.email}</Address>,
                <>
                  {t.roles[m.role]}
                  {m.managedBy === 'directory' ? (
                    <>
                      {' '}
                      <span className="badge">{t.scim.managedByDirectory}</span>
                    </>
                  ) : null}
                </>,
                t.status[m.status],
                formatDate(m.createdAt),
              ],
            }))}
          />
          <nav className="console-pager" aria-label={pageLabel}>
            <button
              type="button"
              className="button secondary"
              disabled={page <= 1}
              onClick={() => setPage(page - 1)}
            >
              {t.members.previous}
            </button>
            <span>{pageLabel}</span>
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
