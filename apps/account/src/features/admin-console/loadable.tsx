import type { ReactNode } from 'react';
import { Loading } from '../../shared/ui/progress.tsx';
import { consoleCopy } from './copy.ts';
import type { Loaded } from './use-load.ts';

/**
 * What a console section shows of something it loads: a progress line while it loads, the failure
 * as an alert, then `children(value)` once it is there.
 */
export function Loadable<T>({ loaded, children }: { loaded: Loaded<T>; children: (value: T) => ReactNode }) {
  if (loaded.state === 'loading') return <Loading label={consoleCopy.loading} />;
  if (loaded.state === 'error') return <p role="alert">{consoleCopy.loadFailed(loaded.message)}</p>;
  return children(loaded.value);
}
