import { useSyncExternalStore } from 'react';

/** Below this width the deliveries table becomes a list (a phone held upright is 320–430 px). */
const NARROW_QUERY = '(max-width: 40rem)';

const query = () => (typeof window.matchMedia === 'function' ? window.matchMedia(NARROW_QUERY) : null);

function subscribe(onChange: () => void): () => void {
  const list = query();
  list?.addEventListener('change', onChange);
  return () => list?.removeEventListener('change', onChange);
}

/** Whether the window is narrow (false where the browser cannot tell). */
export function useNarrow(): boolean {
  return useSyncExternalStore(subscribe, () => query()?.matches ?? false);
}
