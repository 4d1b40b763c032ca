import { copy } from '../copy.ts';
import { getConfig } from '../shared/config/env.ts';
import { Card } from '../shared/ui/card.tsx';

/** Access Denied pages: the generic one, and the product one with a support address. */
export function AccessDeniedView({ product, email }: { product?: string; email?: string }) {
  return (
    <Card title={copy.accessDenied.title}>
      <p role="alert">
        {product && email ? copy.accessDenied.product(product, email) : copy.accessDenied.page}
      </p>
    </Card>
  );
}

export default function AccessDeniedRoute({ search }: { search: { product?: string } }) {
  return (
    <AccessDeniedView
      product={search.product}
      email={search.product ? getConfig().supportEmail : undefined}
    />
  );
}
