/** An accessible progress indicator for waits (redirects, token exchange). */
export function Progress({ label }: { label: string }) {
  return (
    <main className="page">
      <div className="progress" role="status" aria-live="polite">
        <span className="spinner" aria-hidden="true" />
        <span>{label}</span>
      </div>
    </main>
  );
}
