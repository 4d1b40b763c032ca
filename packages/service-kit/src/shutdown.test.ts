import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { drainOnSignals, type DrainIo } from './shutdown.ts';

function fakeIo() {
  const signals = new EventEmitter();
  const lines: string[] = [];
  let resolveExit!: (code: number) => void;
  const exited = new Promise<number>((r) => (resolveExit = r));
  const io: DrainIo = { log: (l) => lines.push(l), exit: (code) => resolveExit(code), signals };
  return { io, signals, lines, exited };
}

describe('drainOnSignals', () => {
  it('exits 0 once close has finished', async () => {
    const { io, signals, exited, lines } = fakeIo();
    let closed = false;
    drainOnSignals(
      'svc',
      async () => {
        await new Promise((r) => setTimeout(r, 30));
        closed = true;
      },
      { io },
    );
    signals.emit('SIGTERM');
    expect(await exited).toBe(0);
    expect(closed).toBe(true);
    expect(lines.join('\n')).toContain('drained');
  });

  it('exits 1 when the requests in flight outlast the deadline', async () => {
    const { io, signals, exited, lines } = fakeIo();
    drainOnSignals('svc', () => new Promise(() => undefined), { io, timeoutMs: 50 });
    const t0 = Date.now();
    signals.emit('SIGTERM');
    expect(await exited).toBe(1);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(lines.join('\n')).toContain('still in flight');
  });

  it('exits 1 at once on a second signal while draining', async () => {
    const { io, signals, exited } = fakeIo();
    drainOnSignals('svc', () => new Promise(() => undefined), { io, timeoutMs: 60_000 });
    signals.emit('SIGINT');
    signals.emit('SIGINT');
    expect(await exited).toBe(1);
  });

  it('exits 1 when closing fails', async () => {
    const { io, signals, exited } = fakeIo();
    drainOnSignals('svc', async () => Promise.reject(new Error('db gone')), { io });
    signals.emit('SIGTERM');
    expect(await exited).toBe(1);
  });
});
