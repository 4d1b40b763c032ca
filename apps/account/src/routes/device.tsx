import { DeviceScreen } from '../features/device/device-screen.tsx';
import type { DeviceSearch } from '../features/device/select-device-step.ts';

export default function DeviceRoute({ search }: { search: DeviceSearch }) {
  return <DeviceScreen search={search} />;
}
