import { LegalDocumentScreen } from '../features/legal/legal-document-screen.tsx';

/** Privacy Notice (guest-allowed). */
export default function PrivacyRoute({ search }: { search: { version?: string } }) {
  return <LegalDocumentScreen kind="privacy" version={search.version} />;
}
