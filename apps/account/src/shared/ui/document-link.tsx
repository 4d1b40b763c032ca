import type { MouseEvent, ReactNode } from 'react';
import { DOCUMENT_WINDOW } from '../../constants.ts';
import { registry } from '../storage/registry.ts';
import { read } from '../storage/storage.ts';
import { selectLinkOpening } from './select-link-opening.ts';

function opening() {
  return selectLinkOpening({
    framed: window.top !== window.self,
    teamsFlag: read(registry.isTeams) === true,
  });
}

/**
 * A link to the Terms of Service or the Privacy Notice. It never replaces the page it sits on (the
 * form keeps what was typed and ticked): a new tab, or inside the Teams frame a new window.
 */
export function DocumentLink({ href, children }: { href: string; children: ReactNode }) {
  function handle(event: MouseEvent<HTMLAnchorElement>) {
    if (opening() !== 'window') return;
    event.preventDefault();
    const { width, height } = DOCUMENT_WINDOW;
    window.open(href, '_blank', `popup,width=${width},height=${height},noopener,noreferrer`);
  }
  return (
    <a href={href} target="_blank" rel="noopener noreferrer" onClick={handle}>
      {children}
    </a>
  );
}
