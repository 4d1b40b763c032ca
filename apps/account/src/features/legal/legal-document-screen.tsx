import { copy } from '../../copy.ts';
import { AccountFooter } from '../../shared/ui/account-footer.tsx';
import { Card } from '../../shared/ui/card.tsx';
import { Progress } from '../../shared/ui/progress.tsx';
import type { LegalDocument, LegalDocumentKind } from './legal-documents.ts';
import type { LegalDocumentView } from './select-legal-document.ts';
import { useLegalDocument } from './use-legal-document.ts';

const TITLES: Record<LegalDocumentKind, string> = {
  get terms() {
    return copy.legal.termsTitle;
  },
  get privacy() {
    return copy.legal.privacyTitle;
  },
};

/** One document: title, version, the sample-text notice, then its sections. */
function LegalDocumentPage({
  kind,
  document,
  supportEmail,
}: {
  kind: LegalDocumentKind;
  document: LegalDocument;
  supportEmail: string;
}) {
  return (
    <Card title={TITLES[kind]} footer={<AccountFooter supportEmail={supportEmail} />}>
      <p className="muted" data-testid="document-version">
        {copy.legal.version(document.version, document.effective)}
      </p>
      <aside className="notice sample-notice" aria-label={copy.legal.sampleLabel}>
        <strong>{copy.legal.sampleLabel}.</strong> {copy.legal.sampleNotice}
      </aside>
      <article className="legal-document">
        {document.sections.map((section) => (
          <section key={section.heading}>
            <h2>{section.heading}</h2>
            {section.paragraphs.map((p) => (
              <p key={p}>{p}</p>
            ))}
          </section>
        ))}
      </article>
    </Card>
  );
}

export function LegalDocumentScreen({ kind, version }: { kind: LegalDocumentKind; version?: string }) {
  const { view, supportEmail } = useLegalDocument(kind, version ?? null);
  return <LegalDocumentBody kind={kind} view={view} supportEmail={supportEmail} />;
}

function LegalDocumentBody({
  kind,
  view,
  supportEmail,
}: {
  kind: LegalDocumentKind;
  view: LegalDocumentView;
  supportEmail: string;
}) {
  if (view.type !== 'show') return <Progress label={copy.common.loading} />;
  return <LegalDocumentPage kind={kind} document={view.document} supportEmail={supportEmail} />;
}
