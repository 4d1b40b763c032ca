import { useSlow } from './use-slow.ts';

/**
 * A wait's indicator, shown once the wait has lasted LOADING_INDICATOR_DELAY_MS (a quick answer
 * shows nothing). The live region is there from the start, so the label is announced when it
 * appears, and the waiting part is marked busy meanwhile.
 */
export function Loading({ label }: { label: string }) {
  const shown = useSlow(true);
  return (
    <p role="status" aria-live="polite" aria-busy="true">
      {shown ? label : null}
    </p>
  );
}

/** A page-wide indicator for waits (redirects, token exchange), after the same delay as Loading. */
export function Progress({ label }: { label: string }) {
  const shown = useSlow(true);
  return (
    <main className="page" aria-busy="true">
      <div className="progress" role="status" aria-live="polite">
        {shown ? (
          <>
            <span className="spinner" aria-hidden="true" />
            <span>{label}</span>
          </>
        ) : null}
      </div>
    </main>
  );
}
