import { AccessDeniedView } from '../features/access-guard/access-guard.tsx';
import { getConfig } from '../shared/config/env.ts';

/** The Access Denied pages as a route: the generic one, or the product one with the support address. */
export default function AccessDeniedRoute({ search }: { search: { product?: string } }) {
  return (
    <AccessDeniedView
      product={search.product}
      email={search.product ? getConfig().supportEmail : undefined}
    />
  );
}
