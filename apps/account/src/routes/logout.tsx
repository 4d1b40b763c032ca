import type { LogoutSearch } from '../features/logout/use-logout.ts';
import { useLogout } from '../features/logout/use-logout.ts';
import { cloudAccountSignedIn } from '../features/m365/cloud-account.ts';
import { ErrorView } from '../shared/ui/error-view.tsx';
import { Progress } from '../shared/ui/progress.tsx';

export default function LogoutRoute({ search }: { search: LogoutSearch }) {
  const { error, label } = useLogout(search, cloudAccountSignedIn);
  if (error) return <ErrorView message={error} mode="retry" />;
  return <Progress label={label} />;
}
