import { useEffect, useState } from 'react';
import { COOKIE_HOOK_POLL_MS, COOKIE_POLL_MS } from '../../constants.ts';

// Cookie-change polling: browsers give no event when another tab writes a cookie, so a tab looks
// again every 300 ms where being in step matters (a protected page notices a logout in another
// tab), and every 5 s in the cookie hook (the login screen notices a sign-in made in another tab).

/** Calls `onChange` with the new value whenever `read()` answers differently; returns the stop function. */
export function watchValue(
  read: () => string | null,
  onChange: (value: string | null) => void,
  intervalMs: number = COOKIE_POLL_MS,
): () => void {
  let last = read();
  const timer = setInterval(() => {
    const current = read();
    if (current === last) return;
    last = current;
    onChange(current);
  }, intervalMs);
  return () => clearInterval(timer);
}

/** The cookie hook: the value `read()` answers, re-rendering when it changes (looked at every 5 s). */
export function useWatchedValue(
  read: () => string | null,
  intervalMs: number = COOKIE_HOOK_POLL_MS,
): string | null {
  const [value, setValue] = useState(read);
  useEffect(() => watchValue(read, setValue, intervalMs), [read, intervalMs]);
  return value;
}
