import { MfaSetupScreen } from '../features/mfa-setup/mfa-setup-screen.tsx';

export default function MfaSetupRoute({ search }: { search: { profileFlow?: string } }) {
  return <MfaSetupScreen profileFlow={search.profileFlow} />;
}
