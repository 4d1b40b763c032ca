import { RecoveryScreen } from '../features/recovery/recovery-screen.tsx';
import type { RecoverySearch } from '../features/recovery/use-recovery.ts';

export default function ForgotPasswordRoute({ search }: { search: RecoverySearch }) {
  return <RecoveryScreen search={search} />;
}
