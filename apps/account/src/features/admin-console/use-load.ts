import { useCallback, useEffect, useState } from 'react';
import { HttpError } from '../../shared/errors/http-error.ts';

export type Loaded<T> =
  | { state: 'loading' }
  | { state: 'error'; status: number | null; message: string; errorCode?: string }
  | { state: 'ready'; value: T };

/** Runs `load` when `key` changes; `reload` runs it again (after a change). */
export function useLoad<T>(key: string, load: () => Promise<T>): [Loaded<T>, () => void] {
  const [result, setResult] = useState<Loaded<T>>({ state: 'loading' });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (value) => live && setResult({ state: 'ready', value }),
      (error: unknown) => live && setResult(failure(error)),
    );
    return () => {
      live = false;
    };
    // `load` is a fresh closure each render; `key` names what it loads.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return [result, reload];
}

export function failure(error: unknown): {
  state: 'error';
  status: number | null;
  message: string;
  errorCode?: string;
} {
  const errorCode =
    error instanceof HttpError ? (error.body as { errorCode?: unknown } | null)?.errorCode : undefined;
  return {
    state: 'error',
    status: error instanceof HttpError ? error.status : null,
    message: error instanceof Error ? error.message : String(error),
    ...(typeof errorCode === 'string' ? { errorCode } : {}),
  };
}

/** Dates and numbers in the active locale. */
export { formatDateTime as formatDate, formatNumber } from '../../i18n/format.ts';
