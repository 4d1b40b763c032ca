import { IDLE_WORK_TIMEOUT_MS } from '../../constants.ts';

// Long tasks on the main thread delay whatever the person does meanwhile (a tap, a keystroke); on a
// slow phone the app's start is several of them. These helpers end the current task so that the
// browser can paint and handle input, and the work carries on in a new one.

interface PostTaskScheduler {
  yield?: () => Promise<void>;
}

/**
 * Resolves in a new task. Where the browser offers `scheduler.yield()`, the rest of the work keeps
 * its place ahead of other queued tasks; elsewhere a zero-delay timer.
 */
export function yieldToBrowser(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: PostTaskScheduler }).scheduler;
  if (typeof scheduler?.yield === 'function') return scheduler.yield();
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Runs `work` once the browser is idle (at most `IDLE_WORK_TIMEOUT_MS` later). Returns a cancel
 * function, for an effect's clean-up.
 */
export function whenIdle(work: () => void): () => void {
  if (typeof requestIdleCallback === 'function') {
    const handle = requestIdleCallback(work, { timeout: IDLE_WORK_TIMEOUT_MS });
    return () => cancelIdleCallback(handle);
  }
  const handle = setTimeout(work, 0);
  return () => clearTimeout(handle);
}

/**
 * Resolves once the document is parsed and its deferred scripts have run (the runtime
 * configuration among them): at once on a parsed document, else at DOMContentLoaded. The login
 * page may start the app's module before that (server/deferred-start.ts).
 */
export function documentParsed(doc: Document = document): Promise<void> {
  if (doc.readyState !== 'loading') return Promise.resolve();
  return new Promise((resolve) => doc.addEventListener('DOMContentLoaded', () => resolve(), { once: true }));
}
