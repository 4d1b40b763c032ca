// @vitest-environment jsdom
import { act, renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { getConfig } from '../../shared/config/env.ts';
import { registry } from '../../shared/storage/registry.ts';
import { write } from '../../shared/storage/storage.ts';
import { mockFetch } from '../../testing/fetch-mock.ts';
import { browserFlow } from '../../testing/identity.ts';
import { resetScreenBetweenTests } from '../../testing/screen.ts';
import { useLoginFlow, type LoginFlowInput } from './use-login-flow.ts';

// One login flow per page: a second creation sets a second anti-CSRF cookie, and the flow bound to
// the cookie that lost fails its same-browser check when the browser comes back from a provider.

resetScreenBetweenTests();

/** Counts flow creations; the first is held until `release` (a loaded identity service). */
function flows() {
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  let created = 0;
  mockFetch(async ({ url }) => {
    if (url.pathname !== '/self-service/login/browser') return undefined;
    created += 1;
    const id = `flow-${created}`;
    if (created === 1) await held;
    return { status: 200, body: browserFlow('login', id, 'choose_method', []) };
  });
  return { release, created: () => created };
}

const input = (eager: boolean): LoginFlowInput => ({
  config: getConfig(),
  flowId: undefined,
  storedChallenge: 'ch-1',
  eager,
  aal2: false,
  refresh: () => undefined,
});

describe('useLoginFlow: one flow, whichever starts first', () => {
  it("a step submitted in the same turn as the page's own load starts: the load takes the step's flow", async () => {
    write(registry.loginChallenge, 'ch-1');
    const server = flows();
    const { result, rerender } = renderHook((eager: boolean) => useLoginFlow(input(eager)), {
      initialProps: false,
    });
    let obtained: Promise<unknown> = Promise.resolve();
    // The submit, then (before its next turn) the page's own load: the effect runs inside act.
    act(() => {
      obtained = result.current.obtainFlow({});
      rerender(true);
    });
    server.release();
    await act(async () => {
      await obtained;
    });
    expect(server.created()).toBe(1);
    expect(result.current.flow?.id).toBe('flow-1');
  });

  it("a step submitted while the page's own load is on its way waits for it", async () => {
    write(registry.loginChallenge, 'ch-1');
    const server = flows();
    const { result } = renderHook(() => useLoginFlow(input(true)));
    let obtained: Promise<unknown> = Promise.resolve();
    act(() => {
      obtained = result.current.obtainFlow({});
    });
    server.release();
    let flow: unknown;
    await act(async () => {
      flow = await obtained;
    });
    expect(server.created()).toBe(1);
    expect((flow as { id: string }).id).toBe('flow-1');
  });

  it('a second factor asks for a flow of its own (aal2): the page keeps its first', async () => {
    write(registry.loginChallenge, 'ch-1');
    const server = flows();
    server.release();
    const { result } = renderHook(() => useLoginFlow(input(false)));
    await act(async () => {
      await result.current.obtainFlow({});
    });
    await act(async () => {
      await result.current.obtainFlow({ aal2: true });
    });
    expect(server.created()).toBe(2);
  });
});
