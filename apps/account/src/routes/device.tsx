import { DeviceScreen } from '../features/device/device-screen.tsx';
import type { DeviceSearch } from '../features/device/select-device-step.ts';
import { AppShell } from '../shared/shell/app-shell.tsx';

export default function DeviceRoute({ search }: { search: DeviceSearch }) {
  return (
    <AppShell>
      <DeviceScreen search={search} />
    </AppShell>
  );
}
