import { defineConfig } from 'vitest/config';
import { DISABLE_PROTO_FLAG } from '@acme/service-kit/prototype';

// Files about the app's screens rather than the system behind them: how they are drawn (every
// signed-in screen at three widths in two colour schemes; axe on every screen, in two languages).
// The same bundle is served on both targets, so they run on the single-process system only: on the
// cluster they repeated checks that no instance or load balancer can change.
const APP_SCREENS = ['signed-in-layouts.e2e.ts', 'accessibility.e2e.ts', 'accessibility-more.e2e.ts'];
// Each journey by keyboard alone (password, 2FA, recovery, invitation, SSO, Microsoft 365): on the
// cluster, through its instances and its front door, where each also has a twin driven by the mouse;
// not again on the single process, whose journeys stage is the longer one.
const KEYBOARD = ['keyboard.e2e.ts'];
// `npm test` runs the screens as a stage of their own beside the rest (E2E_PART=app, and =journeys
// for the rest); unset runs every file.
const part = process.env.E2E_PART;
const cluster = process.env.E2E_TARGET === 'cluster';

// Browser journeys: one system started for the whole run (global-setup.ts), files run one
// after another so the two cores are not fighting over Chromium and argon2 at once (the screens'
// files aside, below).
export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: part === 'app' ? APP_SCREENS : ['**/*.e2e.ts'],
    exclude: [
      '**/node_modules/**',
      ...(cluster || part === 'journeys' ? APP_SCREENS : []),
      ...(part === 'journeys' ? KEYBOARD : []),
    ],
    globalSetup: ['./global-setup.ts'],
    // The screens' files (E2E_PART=app) run side by side, a worker and a browser each: they mostly
    // wait on the browser (about 15 % of a core between them), and one after another they were the
    // longest stage of `npm test` (880 s). They share only data none of them changes (the demo's
    // people and tenants); what they change is each file's own or kept inside one file.
    fileParallelism: part === 'app',
    maxWorkers: part === 'app' ? APP_SCREENS.length : 1,
    // The files share their worker process, one after another: no fresh process, module graph and
    // set-up per file (about 1.8 s between two files before, 65 s of the single-process run). Each
    // file launches and closes its own browser, and the system is the global set-up's anyway.
    isolate: false,
    // A journey that fails is run once more: on this two-core machine, shared by every stage of
    // `npm test`, a few journeys have stuck now and then in ways not yet explained (docs/testing.md).
    // The second try is reported, not hidden: `npm test` lists every journey that needed it.
    retry: 1,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // A journey's `expect.poll` waits for the system as its locators do, not Vitest's 1 s: a console
    // action's reload took longer than that once under load (a member's status after Reactivate).
    expect: { poll: { timeout: 30_000 } },
    pool: 'forks',
    // As every service process runs (packages/service-kit/src/prototype.ts).
    execArgv: [DISABLE_PROTO_FLAG],
  },
});
