import { AccessDeniedView, AccessGuard } from '../features/access-guard/access-guard.tsx';
import { AdminConsole } from '../features/admin-console/admin-console.tsx';
import { useLocation } from '../shared/navigation/history.ts';

/** The organisation admin console (`/admin/*`, admin application), behind the access guard. */
export default function AdminRoute({ search }: { search: { id?: string } }) {
  const location = useLocation();
  const path = location.pathname.replace(/\/+$/, '');
  return (
    <AccessGuard>
      {() => <AdminConsole path={path} memberId={search.id} denied={<AccessDeniedView />} />}
    </AccessGuard>
  );
}
