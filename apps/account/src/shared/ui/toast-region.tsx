import { useSyncExternalStore } from 'react';
import { copy } from '../../copy.ts';
import { toastStore } from '../errors/error-store.ts';

/** Flow errors as toasts (60 s, "Action could not be completed"), in a polite live region. */
export function ToastRegion() {
  const toasts = useSyncExternalStore(toastStore.subscribe, toastStore.getSnapshot, toastStore.getSnapshot);
  return (
    <div className="toasts" aria-live="polite" aria-relevant="additions">
      {toasts.map((t) => (
        <div key={t.id} className="toast" role="alert">
          <div className="toast-body">
            <strong className="toast-title">{copy.toast.title}</strong>
            <p>{t.message}</p>
          </div>
          <button
            type="button"
            className="toast-close"
            aria-label={copy.toast.dismiss}
            onClick={() => toastStore.dismiss(t.id)}
          >
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
