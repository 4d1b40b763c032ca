import type { ReactNode } from 'react';
import { useEffect } from 'react';
import { LANDING_MARK } from '../../constants.ts';
import { accessModeText, copy } from '../../copy.ts';
import { allowedAuthModes } from '../../shared/config/env.ts';
import { paths } from '../../shared/config/paths.ts';
import type { AccessTokenClaims } from '../../shared/oauth2/jwt.ts';
import type { SessionResult } from '../../shared/session/use-session.ts';
import { Card } from '../../shared/ui/card.tsx';
import { ErrorView } from '../../shared/ui/error-view.tsx';
import { Progress } from '../../shared/ui/progress.tsx';
import type { GuardOptions } from './use-access-guard.ts';
import { useAccessGuard } from './use-access-guard.ts';

/** The Access Denied pages: the generic one, and the product one with the access contact. */
export function AccessDeniedView({ product, email }: { product?: string; email?: string }) {
  return (
    <Card title={copy.accessDenied.title}>
      <p role="alert">
        {product && email ? copy.accessDenied.product(product, email) : copy.accessDenied.page}
      </p>
    </Card>
  );
}

/** The unauthorised-mode page: this application does not accept the way the user signed in. */
function ModeDeniedView({ mode, appName, allowed }: { mode: string; appName: string; allowed: string[] }) {
  return (
    <Card title={copy.accessDenied.title}>
      <p role="alert">{accessModeText(appName, mode, allowed)}</p>
      <a className="button secondary" href={paths.logout}>
        {copy.research.logout}
      </a>
    </Card>
  );
}

/** A page the guard let through: its first paint ends a sign-in (the mark the sign-in benchmark reads). */
function Allowed({ children }: { children: ReactNode }) {
  useEffect(() => {
    if (performance.getEntriesByName(LANDING_MARK).length === 0) performance.mark(LANDING_MARK);
  }, []);
  return <>{children}</>;
}

export interface GuardedProps {
  session: SessionResult;
  claims: AccessTokenClaims | null;
}

/**
 * Renders `children` only when decideAccess allows; otherwise the page its outcome names (the
 * navigations to login, logout and welcome run in the hook; a progress indicator shows meanwhile).
 */
export function AccessGuard({
  children,
  ...options
}: GuardOptions & { children: (props: GuardedProps) => ReactNode }) {
  const { session, claims, access, config, tokenError } = useAccessGuard({ hasModePage: true, ...options });
  if (tokenError) return <ErrorView message={tokenError} mode="login" />;
  if (session.state === 'error') {
    return (
      <ErrorView message={copy.errors.loadingSession(session.error ?? copy.errors.unknown)} mode="retry" />
    );
  }
  if (!access) return <Progress label={copy.common.loading} />;
  switch (access.type) {
    case 'allow':
      return <Allowed>{children({ session, claims })}</Allowed>;
    case 'denied-product':
      return <AccessDeniedView product={access.product} email={config.supportEmail} />;
    case 'denied-mode':
      return (
        <ModeDeniedView mode={access.mode} appName={config.appName} allowed={allowedAuthModes(config)} />
      );
    case 'denied-page':
      return <AccessDeniedView />;
    default:
      return <Progress label={copy.common.loading} />;
  }
}
