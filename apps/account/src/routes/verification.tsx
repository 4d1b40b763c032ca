import { VerificationScreen } from '../features/verification/verification-screen.tsx';
import type { VerificationSearch } from '../features/verification/use-verification.ts';

export default function VerificationRoute({ search }: { search: VerificationSearch }) {
  return <VerificationScreen search={search} />;
}
