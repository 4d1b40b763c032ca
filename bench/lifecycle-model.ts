import { randomInt } from 'node:crypto';
import { runLifecycleModel } from '../services/users/test/lifecycle-model.ts';
import { startLifecycleStack } from '../services/users/test/lifecycle-stack.ts';

/**
 * The account lifecycle model (services/users/test/lifecycle-model.ts) with a random seed and more
 * runs than `npm test` gives it: the seed is printed first, so a counterexample found here can be
 * replayed with `LIFECYCLE_SEED=<seed> LIFECYCLE_RUNS=<runs> npx vitest run
 * services/users/test/lifecycle.model.int.test.ts`. BENCH_LIFECYCLE_SEED fixes the seed.
 */
export async function benchLifecycleModel(options: { runs: number; maxCommands: number; seed?: number }) {
  const seed = options.seed ?? randomInt(2 ** 31 - 1);
  console.log(`lifecycle model: seed ${seed}, ${options.runs} runs of at most ${options.maxCommands} steps`);
  const stack = await startLifecycleStack();
  const started = performance.now();
  try {
    const details = await runLifecycleModel(stack, {
      seed,
      runs: options.runs,
      maxCommands: options.maxCommands,
    });
    const result = {
      seed,
      runs: details.numRuns,
      maxCommands: options.maxCommands,
      seconds: Math.round((performance.now() - started) / 100) / 10,
      pass: !details.failed,
      ...(details.failed
        ? { counterexample: String(details.errorInstance), path: details.counterexamplePath }
        : {}),
    };
    if (details.failed)
      console.log(`lifecycle model: counterexample (seed ${seed})\n${result.counterexample}`);
    return result;
  } finally {
    await stack.close();
  }
}
