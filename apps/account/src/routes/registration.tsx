import { RegistrationScreen } from '../features/registration/registration-screen.tsx';
import type { RegistrationSearch } from '../features/registration/use-registration.ts';

export default function RegistrationRoute({ search }: { search: RegistrationSearch }) {
  return <RegistrationScreen search={search} />;
}
