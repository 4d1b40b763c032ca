import { OnboardingScreen } from '../features/invitation/onboarding-screen.tsx';
import type { OnboardingSearch } from '../features/invitation/use-onboarding.ts';

export default function OnboardingRoute({ search }: { search: OnboardingSearch }) {
  return <OnboardingScreen search={search} />;
}
