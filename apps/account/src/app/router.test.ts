import { describe, expect, it } from 'vitest';
import { ROUTE_ACCESS } from '../shared/config/route-access.ts';
import { SERVED_PATHS } from './router.tsx';

// The route-access table and the route table describe the same routes: a route the router serves
// that the access table does not list would be decided by nobody, and an access entry no route
// serves (such as the console's old `/account/admin`) describes a page that does not exist.

/** Paths of `served` the access table does not list, and entries of `table` no route serves. */
export function routeAccessGaps(served: readonly string[], table: Readonly<Record<string, unknown>>) {
  const listed = Object.keys(table);
  return {
    unlisted: served.filter((p) => !listed.includes(p)),
    unserved: listed.filter((p) => !served.includes(p)),
  };
}

describe('the route-access table covers the route table', () => {
  it('lists every path the router serves, the admin console included', () => {
    expect(SERVED_PATHS).toContain('/admin/members');
    expect(routeAccessGaps(SERVED_PATHS, ROUTE_ACCESS).unlisted).toEqual([]);
  });

  it('has no entry for a path no route serves', () => {
    expect(routeAccessGaps(SERVED_PATHS, ROUTE_ACCESS).unserved).toEqual([]);
  });

  it('the check fails on an unlisted route and on an entry no route serves', () => {
    expect(
      routeAccessGaps(['/account/login', '/admin/new'], { '/account/login': {}, '/account/admin': {} }),
    ).toEqual({
      unlisted: ['/admin/new'],
      unserved: ['/account/admin'],
    });
  });
});
