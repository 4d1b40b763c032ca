import { LegalDocumentScreen } from '../features/legal/legal-document-screen.tsx';

/** Terms of Service (guest-allowed). */
export default function TermsRoute({ search }: { search: { version?: string } }) {
  return <LegalDocumentScreen kind="terms" version={search.version} />;
}
