import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePortsApart } from './free-ports.ts';
import { startProcessCluster } from './system.ts';

/** This process's children whose command line holds `needle` (from /proc). */
function children(needle: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[1]);
      if (ppid === process.pid && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle))
        found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

const empty = mkdtempSync(join(tmpdir(), 'cluster-nothing-'));
afterAll(() => {
  for (const pid of children('services/agent')) process.kill(pid, 'SIGKILL');
  rmSync(empty, { recursive: true, force: true });
});

describe('startProcessCluster', () => {
  it('when one instance fails to start, the instances of that part that did start are stopped too', async () => {
    const [agent, agentAdmin] = await freePortsApart(2);
    await expect(
      startProcessCluster({
        parts: ['agent'],
        instances: 2,
        ports: { agent, agentAdmin },
        runtime: 'compiled',
        // The second instance from a checkout with nothing in it: it exits at once.
        instanceFrom: (_part, index) => (index === 1 ? { root: empty, runtime: 'compiled' } : undefined),
      }),
    ).rejects.toThrow(/agent-2/);
    expect(children('services/agent')).toEqual([]);
  }, 60_000);
});
