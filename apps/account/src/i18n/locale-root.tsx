import { Fragment, type ReactNode } from 'react';
import { useLocale } from './locale.ts';

/**
 * Renders the app anew when the locale changes (a person saves another language), so every screen
 * reads its texts in the new one at once; screens keep their state in the URL and the server.
 */
export function LocaleRoot({ children }: { children: ReactNode }) {
  const locale = useLocale();
  return <Fragment key={locale}>{children}</Fragment>;
}
