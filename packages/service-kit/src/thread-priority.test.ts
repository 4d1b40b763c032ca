import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Run in a child process: lowering the priority of this test worker's own pool would slow the
// rest of the suite on the same worker.
function niceValuesAfter(nice: number): { changed: number; pool: number[]; main: number } {
  const module = join(import.meta.dirname, 'thread-priority.ts');
  const script = `
    import { readdirSync, readFileSync } from 'node:fs';
    const { lowerThreadPoolPriority } = await import(${JSON.stringify(module)});
    const changed = await lowerThreadPoolPriority(${nice});
    // Field 19 of /proc/<pid>/task/<tid>/stat is the nice value (after the command in parentheses).
    const niceOf = (tid) => Number(readFileSync('/proc/self/task/' + tid + '/stat', 'utf8').split(') ')[1].split(' ')[16]);
    const pool = [];
    for (const tid of readdirSync('/proc/self/task'))
      if (readFileSync('/proc/self/task/' + tid + '/comm', 'utf8').trim() === 'libuv-worker') pool.push(niceOf(tid));
    console.log(JSON.stringify({ changed, pool, main: niceOf(process.pid) }));`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').pop()!);
}

describe('lowerThreadPoolPriority (Linux)', () => {
  it('gives every thread of the pool the nice value and leaves the main thread as it is', () => {
    const r = niceValuesAfter(7);
    expect(r.changed).toBeGreaterThan(0);
    expect(r.pool).toHaveLength(r.changed);
    expect(r.pool.every((n) => n === 7)).toBe(true);
    expect(r.main).toBe(0);
  });

  it('changes nothing with 0', () => {
    const r = niceValuesAfter(0);
    expect(r.changed).toBe(0);
    expect(r.pool.every((n) => n === 0)).toBe(true);
  });
});
