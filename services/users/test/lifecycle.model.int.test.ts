import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLifecycleModel } from './lifecycle-model.ts';
import { startLifecycleStack, type LifecycleStack } from './lifecycle-stack.ts';

/**
 * The account lifecycle as a model (see lifecycle-model.ts): a fixed seed and a bounded number of
 * runs here; the bench runs it with a random seed and more runs.
 */
describe('account lifecycle model', () => {
  let stack: LifecycleStack;
  beforeAll(async () => {
    stack = await startLifecycleStack();
  }, 60_000);
  afterAll(() => stack?.close());

  it('no random sequence of sign-ups, invitations, SSO, SCIM, console and settings steps lets a stranger in, issues a token for an unproven address or a deactivated person, opens a way around enforced SSO, or leaves the organisation without an org-admin who can sign in', async () => {
    const details = await runLifecycleModel(stack, {
      seed: Number(process.env.LIFECYCLE_SEED ?? 20261128),
      runs: Number(process.env.LIFECYCLE_RUNS ?? 6),
      maxCommands: 10,
      ...(process.env.LIFECYCLE_VERBOSE ? { onRun: (log: string[]) => console.log(log.join('\n')) } : {}),
    });
    expect(details.failed, details.failed ? String(details.errorInstance ?? details.error) : '').toBe(false);
  }, 240_000);
});
