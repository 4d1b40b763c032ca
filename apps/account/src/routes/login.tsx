import type { LoginSearch } from '../features/login/use-login.ts';
import { LoginScreen } from '../features/login/login-screen.tsx';

export default function LoginRoute({ search }: { search: LoginSearch }) {
  return <LoginScreen search={search} />;
}
