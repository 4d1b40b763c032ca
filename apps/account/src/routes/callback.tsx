import { copy } from '../copy.ts';
import type { CallbackSearch } from '../features/callback/use-callback.ts';
import { useCallbackRoute } from '../features/callback/use-callback.ts';
import { ErrorView } from '../shared/ui/error-view.tsx';
import { Progress } from '../shared/ui/progress.tsx';

export default function CallbackRoute({ search }: { search: CallbackSearch }) {
  const { error } = useCallbackRoute(search);
  if (error) return <ErrorView message={error} mode="login" />;
  return <Progress label={copy.progress.signingIn} />;
}
