// The parts whose settings the configuration reference lists (docs/configuration.md and
// deploy/env/<part>.env.example, rendered by packages/service-kit/src/config-reference.ts).
// `npm run config:docs` writes them (scripts/config-docs.ts); a test fails when either is stale.
import type { PartSettings } from '@acme/service-kit/config';
import { generatedFiles as render } from '@acme/service-kit/config-reference';
import { settings as identity } from '../services/identity/src/config.ts';
import { settings as oauth2 } from '../services/oauth2/src/config.ts';
import { settings as users } from '../services/users/src/config.ts';
import { cliSettings } from '../services/users/src/cli-commands.ts';
import { settings as agent } from '../services/agent/src/config.ts';
import { settings as account } from '../apps/account/server/config.ts';
import { settings as standIns } from '../dev/src/config.ts';
import { launcherSettings } from '../dev/src/launchers/config.ts';
import { tracingEnvSchema } from '@acme/service-kit/tracing';

/** OpenTelemetry's standard variables, read the same way by every part (service-kit tracing.ts). */
const tracing: PartSettings = {
  part: 'tracing',
  title: 'Tracing (every part)',
  schemas: [tracingEnvSchema],
  renames: {},
};

/** Every part, in the order the reference lists them. */
export const PARTS: readonly PartSettings[] = [
  identity,
  oauth2,
  users,
  agent,
  account,
  tracing,
  standIns,
  cliSettings,
  ...launcherSettings,
];

/** Every generated file (path from the repository root → its content now). */
export function generatedFiles(): Record<string, string> {
  return render(PARTS);
}
