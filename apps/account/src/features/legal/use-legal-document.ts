import { useEffect, useState } from 'react';
import { getConfig } from '../../shared/config/env.ts';
import { paths } from '../../shared/config/paths.ts';
import { replaceDocument } from '../../shared/navigation/history.ts';
import { getCurrentTerms } from '../../shared/users-client/users-client.ts';
import type { LegalDocumentKind } from './legal-documents.ts';
import { LEGAL_DOCUMENTS } from './legal-documents.ts';
import type { CurrentDocument } from './select-legal-document.ts';
import { selectLegalDocument } from './select-legal-document.ts';

/** The Terms of Service or Privacy Notice page: asks the user service for the current version and URL. */
export function useLegalDocument(kind: LegalDocumentKind, queryVersion: string | null) {
  const config = getConfig();
  const [current, setCurrent] = useState<CurrentDocument>({ status: 'loading' });
  useEffect(() => {
    let cancelled = false;
    getCurrentTerms(config.usersUrl).then(
      (documents) => !cancelled && setCurrent({ status: 'ok', ...documents[kind] }),
      () => !cancelled && setCurrent({ status: 'error' }),
    );
    return () => {
      cancelled = true;
    };
  }, [config.usersUrl, kind]);

  const view = selectLegalDocument({
    queryVersion,
    current,
    pagePath: paths[kind],
    appOrigins: Object.values(config.urlMap).map((url) => new URL(url).origin),
    shipped: LEGAL_DOCUMENTS[kind],
  });
  const target = view.type === 'redirect' ? view.url : null;
  useEffect(() => {
    if (target) replaceDocument(target);
  }, [target]);
  return { view, supportEmail: config.supportEmail };
}
