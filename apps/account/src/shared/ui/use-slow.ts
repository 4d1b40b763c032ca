import { useEffect, useState } from 'react';
import { LOADING_INDICATOR_DELAY_MS } from '../../constants.ts';

/** True once `waiting` has lasted LOADING_INDICATOR_DELAY_MS; false again when the wait ends. */
export function useSlow(waiting: boolean): boolean {
  const [slow, setSlow] = useState(false);
  useEffect(() => {
    if (!waiting) return;
    const timer = setTimeout(() => setSlow(true), LOADING_INDICATOR_DELAY_MS);
    return () => {
      clearTimeout(timer);
      setSlow(false);
    };
  }, [waiting]);
  return waiting && slow;
}
