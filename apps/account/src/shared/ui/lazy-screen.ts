import type { ComponentType } from 'react';
import { useEffect, useState } from 'react';

// Route chunks are loaded before their screen renders, instead of through React.lazy and Suspense.
// React holds back the content of a Suspense boundary until its fallback has been shown for 300 ms
// (so that fast loads do not flash); a sign-in passes three lazy screens (landing, callback,
// landing again), and those holds were about 0.9 s of it. Here the previous render (a progress
// indicator) stays until the chunk is in, and the screen then renders at once.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Screen = ComponentType<any>;

export interface LazyScreen {
  /** Starts (or joins) the chunk's download; resolves when the screen can render. */
  load(): Promise<Screen>;
  /** The screen once loaded; undefined before. */
  readonly loaded: Screen | undefined;
  /** Why the chunk could not be loaded, once that is known. */
  readonly error: unknown;
}

export function lazyScreen(loader: () => Promise<{ default: Screen }>): LazyScreen {
  let pending: Promise<Screen> | undefined;
  const screen = {
    loaded: undefined as Screen | undefined,
    error: undefined as unknown,
    load(): Promise<Screen> {
      pending ??= loader().then(
        (module) => (screen.loaded = module.default),
        (error: unknown) => {
          screen.error = error ?? new Error('the screen could not be loaded');
          pending = undefined; // a later navigation may try again
          throw screen.error;
        },
      );
      return pending;
    },
  };
  return screen;
}

/**
 * The screen's component once its chunk is loaded, or null while it loads (or for no screen). A failed load is thrown
 * during render, so that the app's error boundary shows it (as React.lazy would).
 */
export function useLazyScreen(screen: LazyScreen | Screen | null): Screen | null {
  const lazy = screen && isLazy(screen) ? screen : undefined;
  const [failed, setFailed] = useState<{ screen: LazyScreen; error: unknown } | null>(null);
  const [, setLoadedCount] = useState(0);
  useEffect(() => {
    if (!lazy || lazy.loaded) return;
    let live = true;
    lazy.load().then(
      () => live && setLoadedCount((n) => n + 1),
      (error: unknown) => live && setFailed({ screen: lazy, error }),
    );
    return () => {
      live = false;
    };
  }, [lazy]);
  if (!lazy) return screen as Screen | null;
  if (failed?.screen === lazy) throw failed.error;
  return lazy.loaded ?? null;
}

function isLazy(screen: LazyScreen | Screen): screen is LazyScreen {
  return typeof screen === 'object' && screen !== null && 'load' in screen;
}
