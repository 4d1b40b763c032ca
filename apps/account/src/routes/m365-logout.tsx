import { useM365Logout } from '../features/m365/use-m365-logout.ts';
import { ErrorView } from '../shared/ui/error-view.tsx';
import { Progress } from '../shared/ui/progress.tsx';

export default function M365LogoutRoute() {
  const { error, label } = useM365Logout();
  if (error) return <ErrorView message={error} mode="retry" />;
  return <Progress label={label} />;
}
