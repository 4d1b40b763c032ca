import type { ReactNode } from 'react';

/** The form card (SPEC §9: 440 px wide). `leading` sits before the title (e.g. a back arrow). */
export function Card({
  title,
  leading,
  children,
  footer,
}: {
  title?: ReactNode;
  leading?: ReactNode;
  children: ReactNode;
  footer?: ReactNode;
}) {
  return (
    <main className="page">
      <section className="card" aria-labelledby={title ? 'card-title' : undefined}>
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
      {footer ? <footer className="page-footer">{footer}</footer> : null}
    </main>
  );
}
