/**
 * A bounded work pool for password hashing: at most `concurrency` tasks run at once, at most
 * `maxQueue` wait, and anything beyond is refused at once (`PoolSaturatedError`) instead of waiting
 * without bound. Hashing is deliberately slow and memory-hungry (argon2id: 19 MiB per hash), so an
 * unbounded queue under a burst of logins would only turn into time-outs and memory pressure; a
 * quick 503 with Retry-After lets clients and load balancers back off.
 */
export class PoolSaturatedError extends Error {
  constructor() {
    super('the password hashing queue is full');
    this.name = 'PoolSaturatedError';
  }
}

export interface PoolOptions {
  /** Tasks running at the same time (at least 1). */
  concurrency: number;
  /** Tasks allowed to wait for a free slot (0: none wait). */
  maxQueue: number;
}

export interface WorkPool {
  /** Runs `task` when a slot is free; rejects with `PoolSaturatedError` when the queue is full. */
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Tasks running now. */
  readonly active: number;
  /** Tasks waiting now. */
  readonly queued: number;
  /** Tasks refused since the pool was made. */
  readonly rejected: number;
  readonly options: Readonly<PoolOptions>;
}

export function createWorkPool(options: PoolOptions): WorkPool {
  if (!Number.isInteger(options.concurrency) || options.concurrency < 1)
    throw new Error('pool concurrency must be a positive integer');
  if (!Number.isInteger(options.maxQueue) || options.maxQueue < 0)
    throw new Error('pool queue size must be a non-negative integer');
  let active = 0;
  let rejected = 0;
  const waiting: (() => void)[] = [];

  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else active--;
  };

  return {
    options: Object.freeze({ ...options }),
    get active() {
      return active;
    },
    get queued() {
      return waiting.length;
    },
    get rejected() {
      return rejected;
    },
    async run<T>(task: () => Promise<T>): Promise<T> {
      if (active < options.concurrency) {
        active++;
      } else {
        if (waiting.length >= options.maxQueue) {
          rejected++;
          throw new PoolSaturatedError();
        }
        // The slot is handed over by `release` (active stays the same).
        await new Promise<void>((resolve) => waiting.push(resolve));
      }
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}
