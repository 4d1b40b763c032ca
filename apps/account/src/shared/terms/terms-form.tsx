import type { FormEvent, ReactNode } from 'react';
import { useEffect, useState } from 'react';
import { copy } from '../../copy.ts';
import { getConfig } from '../config/env.ts';
import { getErrorMessage } from '../errors/get-error-message.ts';
import { Card } from '../ui/card.tsx';
import { Checkbox } from '../ui/checkbox.tsx';
import { DocumentLink } from '../ui/document-link.tsx';
import { ErrorView } from '../ui/error-view.tsx';
import { FormErrors } from '../ui/form-errors.tsx';
import { Progress } from '../ui/progress.tsx';
import type { TermsDocuments } from '../users-client/users-client.ts';
import { getCurrentTerms } from '../users-client/users-client.ts';
import { canAcceptTerms } from './can-accept-terms.ts';

/**
 * Terms step / "Final Step": two checkboxes (platform terms of service, privacy policy) that
 * must both be ticked before Continue. The current documents come from the user service.
 */
export function TermsForm({
  title,
  header,
  footer,
  busy = false,
  errors = [],
  onAccept,
}: {
  title: string;
  header?: ReactNode;
  footer?: ReactNode;
  busy?: boolean;
  errors?: string[];
  onAccept: (documents: TermsDocuments) => void | Promise<void>;
}) {
  const [documents, setDocuments] = useState<TermsDocuments | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [terms, setTerms] = useState(false);
  const [privacy, setPrivacy] = useState(false);

  useEffect(() => {
    let cancelled = false;
    getCurrentTerms(getConfig().usersUrl).then(
      (d) => !cancelled && setDocuments(d),
      (e: unknown) => !cancelled && setLoadError(getErrorMessage(e)),
    );
    return () => {
      cancelled = true;
    };
  }, []);

  if (loadError) return <ErrorView message={loadError} mode="retry" />;
  if (!documents) return <Progress label={copy.common.loading} />;
  const ok = canAcceptTerms(terms, privacy);

  function handleSubmit(event: FormEvent) {
    event.preventDefault();
    if (ok && !busy && documents) void onAccept(documents);
  }

  return (
    <Card title={title} footer={footer}>
      {header}
      <p className="muted">{copy.terms.prompt}</p>
      <form onSubmit={handleSubmit} aria-busy={busy}>
        <Checkbox checked={terms} onChange={setTerms}>
          {copy.terms.agreeTermsPrefix}{' '}
          <DocumentLink href={documents.terms.url}>{copy.terms.agreeTermsLink}</DocumentLink>
        </Checkbox>
        <Checkbox checked={privacy} onChange={setPrivacy}>
          {copy.terms.agreePrivacyPrefix}{' '}
          <DocumentLink href={documents.privacy.url}>{copy.terms.agreePrivacyLink}</DocumentLink>
        </Checkbox>
        <FormErrors messages={errors} />
        <button type="submit" className="button" disabled={!ok || busy}>
          {copy.common.continue}
        </button>
      </form>
    </Card>
  );
}
