import { readdirSync, readFileSync, stat } from 'node:fs';
import { setPriority } from 'node:os';

/** The name Linux shows for libuv's thread-pool threads (`/proc/<pid>/task/<tid>/comm`). */
const POOL_THREAD = 'libuv-worker';

/**
 * Lowers the scheduling priority of libuv's thread pool, where password hashing runs (argon2id,
 * tens of milliseconds of CPU per hash). Under a login flood the hashes otherwise compete on equal
 * terms with the event loop and the embedded database's worker thread, and every request waits
 * behind them: measured on one core, whoami served during a flood went from 387 to about 6,000
 * req/s with the pool at nice 10, while logins held their rate (hashing takes whatever the loop
 * leaves). File reads and DNS look-ups share the pool and get the same lower priority.
 *
 * Linux only (a thread there has its own nice value, set through its thread id); elsewhere, or
 * with `nice` 0, nothing changes. The pool's threads all start at its first use, which this makes
 * sure of before looking for them. Answers how many threads were changed.
 */
export async function lowerThreadPoolPriority(nice: number): Promise<number> {
  if (nice <= 0 || process.platform !== 'linux') return 0;
  await new Promise<void>((resolve) => stat('.', () => resolve()));
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return 0;
  }
  let changed = 0;
  for (const tid of tids) {
    try {
      if (readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim() !== POOL_THREAD) continue;
      setPriority(Number(tid), nice);
      changed++;
    } catch {
      // The thread ended meanwhile, or the system refused: leave it as it is.
    }
  }
  return changed;
}
