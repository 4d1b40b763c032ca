import { useEffect, useState } from 'react';
import { getConfig } from '../shared/config/env.ts';
import type { ErrorPageMode } from '../shared/errors/error-store.ts';
import { getErrorMessage } from '../shared/errors/get-error-message.ts';
import { getSelfServiceError } from '../shared/identity-client/identity-client.ts';
import { useLocation } from '../shared/navigation/history.ts';
import { ErrorView } from '../shared/ui/error-view.tsx';

/**
 * Error page. With `id` (the identity service's error UI) it shows that error; with a message
 * passed in history state it shows the message; otherwise an empty error box.
 */
export default function ErrorRoute({ search }: { search: { id?: string; mode?: string } }) {
  const location = useLocation();
  const state = (location.state ?? {}) as { message?: string; mode?: ErrorPageMode };
  const [message, setMessage] = useState<string | undefined>(state.message);
  useEffect(() => {
    if (!search.id) return;
    getSelfServiceError(getConfig().identityUrl, search.id).then(
      (e) => setMessage(getErrorMessage(e)),
      () => undefined,
    );
  }, [search.id]);
  const mode: ErrorPageMode = search.mode === 'retry' || state.mode === 'retry' ? 'retry' : 'login';
  return <ErrorView message={message} mode={mode} />;
}
