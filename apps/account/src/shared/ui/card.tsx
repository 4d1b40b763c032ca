import type { ReactNode } from 'react';
import { useEffect } from 'react';

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
  useEffect(() => {
    if (typeof title === 'string') document.title = title;
  }, [title]);
  return (
    <main className="page">
      <section className="card">
        {title ? (
          <div className="card-header">
            {leading}
            <h1 id="card-title" className="card-title">
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
