import { currentLocale } from './locale.ts';

/** A moment as the active locale writes it (medium date, short time). */
export function formatDateTime(iso: string): string {
  return new Intl.DateTimeFormat(currentLocale(), { dateStyle: 'medium', timeStyle: 'short' }).format(
    new Date(iso),
  );
}

/** A number as the active locale writes it (`1,234` in English, `1.234` in German). */
export function formatNumber(n: number): string {
  return new Intl.NumberFormat(currentLocale()).format(n);
}
