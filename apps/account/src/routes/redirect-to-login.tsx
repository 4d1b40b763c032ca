import { useEffect } from 'react';
import { copy } from '../copy.ts';
import { paths } from '../shared/config/paths.ts';
import { navigate } from '../shared/navigation/history.ts';
import { registry } from '../shared/storage/registry.ts';
import { read, remove } from '../shared/storage/storage.ts';
import { Progress } from '../shared/ui/progress.tsx';

/**
 * Screens of later issues send the user to login instead of an empty page. State that would route
 * straight back here (an m365 email result, a password reset in progress) is dropped first.
 */
export default function RedirectToLoginRoute() {
  useEffect(() => {
    if (read(registry.emailResult)?.isM365) remove(registry.emailResult);
    remove(registry.resetPasswordState);
    navigate(paths.login, { replace: true });
  }, []);
  return <Progress label={copy.common.loading} />;
}
