import { useCallback, useState } from 'react';

/**
 * The time a screen decides with. Rendering stays pure: the clock is read when the screen mounts and
 * again only when `refresh` is called (after a timer, or after the state it decides on changed).
 */
export function useNow(): { now: number; refresh: () => void } {
  const [now, setNow] = useState(Date.now);
  const refresh = useCallback(() => setNow(() => Date.now()), []);
  return { now, refresh };
}
