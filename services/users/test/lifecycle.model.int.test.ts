import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replay, runLifecycleModel, steps } from './lifecycle-model.ts';
import { startLifecycleStack, type LifecycleStack } from './lifecycle-stack.ts';

/**
 * The account lifecycle as a model (lifecycle-model.ts) on the real services: random sequences from
 * a fixed seed and a bounded number of runs here (LIFECYCLE_SEED, LIFECYCLE_RUNS and LIFECYCLE_STEPS
 * replay what the bench found with its random seed), then the shortest sequences that broke an
 * invariant before, each named after its threat, replayed as they are.
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
      runs: Number(process.env.LIFECYCLE_RUNS ?? 10),
      maxCommands: Number(process.env.LIFECYCLE_STEPS ?? 10),
    });
    expect(details.failed, String(details.errorInstance ?? '')).toBe(false);
  }, 300_000);

  const known: [string, () => ReturnType<typeof steps.register>[]][] = [
    [
      'abuse: a self-registered address gets a token before its code is entered',
      () => [steps.register(0, 'stranger')],
    ],
    [
      "abuse: pre-hijack: the owner's first SSO sign-in adopts a stranger's self-registered account",
      () => [steps.register(0, 'stranger'), steps.ownerSso(0)],
    ],
    [
      "abuse: pre-hijack: an invitation adopts a stranger's self-registered account and passkey",
      () => [
        steps.register(0, 'stranger'),
        steps.addPasskey(0, 'stranger'),
        steps.invite(0, 'member'),
        steps.acceptInvitation(0),
      ],
    ],
    [
      "abuse: pre-hijack: the owner's account recovery adopts a stranger's self-registered account and passkey",
      () => [steps.register(0, 'stranger'), steps.addPasskey(0, 'stranger'), steps.recover(0)],
    ],
    [
      "abuse: pre-hijack: the owner's account recovery, with no new password set, leaves the stranger's password working",
      () => [steps.register(0, 'stranger'), steps.recover(0, false)],
    ],
    [
      'abuse: a member of an enforcing organisation escapes SSO by changing address and setting a password',
      () => [
        steps.enforce(true),
        steps.ownerSso(0),
        steps.changeAddress(0),
        steps.addPassword(0),
        steps.addPasskey(0, 'owner'),
      ],
    ],
    [
      'abuse: the only org-admin who can sign in steps down while a revoked invitee counts as the other',
      () => [steps.invite(0, 'org-admin'), steps.revokeInvitation(0), steps.rootStepsDown()],
    ],
    [
      'abuse: a person deactivated in the console keeps an access token that answers at /userinfo',
      () => [steps.ownerSso(0), steps.consoleActive(0, false)],
    ],
    [
      'abuse: a person the directory deactivated keeps an access token that answers at /userinfo',
      () => [steps.ownerSso(0), steps.connectDirectory(), steps.scimActive(0, false)],
    ],
    [
      'abuse: a person deactivated in the console keeps an API client that gets tokens',
      () => [steps.ownerSso(0), steps.makeApiClient(0), steps.consoleActive(0, false)],
    ],
    [
      "abuse: pre-hijack: an operator's import of the owner's address adopts a stranger's self-registered account",
      () => [steps.register(0, 'stranger'), steps.importPerson(0), steps.signIn(0, 'stranger')],
    ],
    [
      // The user service knows no imported person: its invitation is refused (the address has an account).
      'an imported person claims the account with their old password; an invitation to the address is refused',
      () => [steps.importPerson(0), steps.signIn(0, 'owner'), steps.invite(0, 'member')],
    ],
  ];
  for (const [name, sequence] of known) {
    it(
      name,
      async () => {
        const log = await replay(stack, sequence());
        if (process.env.LIFECYCLE_VERBOSE) console.warn(log.join('\n'));
        expect(log).toHaveLength(sequence().length);
        // Each sequence starts from a real SSO sign-in where it has one: a stand-in the stack could
        // not reach would leave the later steps checking nothing.
        expect(log.filter((line) => /signs in with SSO → no session/.test(line))).toEqual([]);
      },
      60_000,
    );
  }
});
