import type { ReactNode } from 'react';
import { useEffect, useRef } from 'react';

/** The form card (440 px wide). `leading` sits before the title (e.g. a back arrow). */
export function Card({
  title,
  leading,
  children,
  after,
  footer,
}: {
  title?: ReactNode;
  leading?: ReactNode;
  children: ReactNode;
  /** Content below the card, e.g. the access contact block. */
  after?: ReactNode;
  footer?: ReactNode;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  // Each new step's heading takes the focus (WCAG 2.4.3): a keyboard or screen-reader user hears where
  // they are, and Tab goes on to the step's first control.
  useEffect(() => {
    if (typeof title === 'string') document.title = title;
    heading.current?.focus({ preventScroll: true });
  }, [title]);
  return (
    <main className="page">
      <section className="card">
        {title ? (
          <div className="card-header">
            {leading}
            <h1 id="card-title" className="card-title" tabIndex={-1} ref={heading}>
              {title}
            </h1>
          </div>
        ) : null}
        {children}
      </section>
      {after}
      {footer ? <footer className="page-footer">{footer}</footer> : null}
    </main>
  );
}
