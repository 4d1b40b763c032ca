import { ERROR_TOAST_MS } from '../../constants.ts';

// The one place that decides how an error reaches the user:
// field errors render in the form; flow errors toast "Action could not be completed" for 60 s;
// page errors replace the screen with the error page (Back to Login or Retry).

export type ErrorPageMode = 'login' | 'retry';

export interface Toast {
  id: number;
  message: string;
  expiresAt: number;
}

type Listener = () => void;

let toasts: Toast[] = [];
let nextId = 1;
const listeners = new Set<Listener>();

function emit(): void {
  for (const l of listeners) l();
}

export const toastStore = {
  subscribe(listener: Listener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  getSnapshot(): Toast[] {
    return toasts;
  },
  show(message: string, now = Date.now()): number {
    const id = nextId++;
    toasts = [
      ...toasts.filter((t) => t.message !== message),
      { id, message, expiresAt: now + ERROR_TOAST_MS },
    ];
    emit();
    setTimeout(() => toastStore.dismiss(id), ERROR_TOAST_MS);
    return id;
  },
  dismiss(id: number): void {
    const before = toasts.length;
    toasts = toasts.filter((t) => t.id !== id);
    if (toasts.length !== before) emit();
  },
  clear(): void {
    toasts = [];
    emit();
  },
};

export function showToast(message: string): void {
  toastStore.show(message);
}
