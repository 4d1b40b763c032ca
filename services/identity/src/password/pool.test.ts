import { describe, expect, it } from 'vitest';
import { createWorkPool, PoolSaturatedError } from './pool.ts';

/** A task that runs until the test lets it finish. */
function gate<T>(value: T) {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  let started = false;
  return {
    task: async () => {
      started = true;
      await opened;
      return value;
    },
    open,
    get started() {
      return started;
    },
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('createWorkPool', () => {
  it('runs at most `concurrency` tasks at once and queues the next ones in order', async () => {
    const pool = createWorkPool({ concurrency: 2, maxQueue: 5 });
    const gates = [gate(1), gate(2), gate(3), gate(4)];
    const results = gates.map((g) => pool.run(g.task));
    await tick();
    expect(gates.map((g) => g.started)).toEqual([true, true, false, false]);
    expect(pool.active).toBe(2);
    expect(pool.queued).toBe(2);

    gates[1]!.open();
    await tick();
    expect(gates.map((g) => g.started)).toEqual([true, true, true, false]);
    expect(pool.active).toBe(2);
    expect(pool.queued).toBe(1);

    for (const g of gates) g.open();
    expect(await Promise.all(results)).toEqual([1, 2, 3, 4]);
    expect(pool.active).toBe(0);
    expect(pool.queued).toBe(0);
  });

  it('refuses at once when the queue is full, and accepts again once it drains', async () => {
    const pool = createWorkPool({ concurrency: 1, maxQueue: 1 });
    const running = gate('a');
    const waiting = gate('b');
    const first = pool.run(running.task);
    const second = pool.run(waiting.task);
    await expect(pool.run(async () => 'c')).rejects.toBeInstanceOf(PoolSaturatedError);
    expect(pool.queued).toBe(1);

    running.open();
    waiting.open();
    expect(await first).toBe('a');
    expect(await second).toBe('b');
    expect(await pool.run(async () => 'd')).toBe('d');
  });

  it('with no queue, refuses as soon as every slot is busy', async () => {
    const pool = createWorkPool({ concurrency: 1, maxQueue: 0 });
    const busy = gate(0);
    const first = pool.run(busy.task);
    await expect(pool.run(async () => 1)).rejects.toBeInstanceOf(PoolSaturatedError);
    busy.open();
    await first;
  });

  it('frees the slot when a task fails', async () => {
    const pool = createWorkPool({ concurrency: 1, maxQueue: 0 });
    await expect(pool.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(pool.active).toBe(0);
    expect(await pool.run(async () => 'next')).toBe('next');
  });

  it('rejects nonsensical sizes', () => {
    expect(() => createWorkPool({ concurrency: 0, maxQueue: 1 })).toThrow();
    expect(() => createWorkPool({ concurrency: 1, maxQueue: -1 })).toThrow();
    expect(() => createWorkPool({ concurrency: 1.5, maxQueue: 1 })).toThrow();
  });
});
