import { useEffect, useState } from 'react';

/** A wait shorter than this shows nothing: a progress line that flashes reads as a glitch. */
export const SLOW_WAIT_MS = 300;

/** True once `waiting` has lasted SLOW_WAIT_MS; false again when the wait ends. */
export function useSlow(waiting: boolean): boolean {
  const [slow, setSlow] = useState(false);
  useEffect(() => {
    if (!waiting) return;
    const timer = setTimeout(() => setSlow(true), SLOW_WAIT_MS);
    return () => {
      clearTimeout(timer);
      setSlow(false);
    };
  }, [waiting]);
  return waiting && slow;
}
