/**
 * Keeps this process's event loop busy for `ms`, as a burst past capacity does: the next sample of
 * a service's overload guard (service-kit overload.ts) in this process then finds the loop late.
 */
export function blockEventLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy on purpose
  }
}
