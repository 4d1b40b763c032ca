// @vitest-environment jsdom
import { Component, createElement, type ReactNode } from 'react';
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { lazyScreen, useLazyScreen, type LazyScreen } from './lazy-screen.ts';

afterEach(cleanup);

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function Host({ screen: s }: { screen: LazyScreen }) {
  const loaded = useLazyScreen(s);
  return loaded ? createElement(loaded) : <p>loading</p>;
}

class Boundary extends Component<{ children: ReactNode }, { error: unknown }> {
  override state = { error: undefined as unknown };
  static getDerivedStateFromError(error: unknown) {
    return { error };
  }
  override render() {
    return this.state.error ? <p>failed: {String(this.state.error)}</p> : this.props.children;
  }
}

describe('lazyScreen', () => {
  it('shows the progress render until the chunk is in, then the screen at once', async () => {
    const chunk = deferred<{ default: () => ReactNode }>();
    const s = lazyScreen(() => chunk.promise);
    render(<Host screen={s} />);
    expect(screen.getByText('loading')).toBeTruthy();
    await act(async () => chunk.resolve({ default: () => <h1>Research</h1> }));
    expect(screen.getByRole('heading', { name: 'Research' })).toBeTruthy();
  });

  it('renders a screen loaded ahead (preload) on the first render, with no progress step', async () => {
    let loads = 0;
    const s = lazyScreen(async () => {
      loads++;
      return { default: () => <h1>Landing</h1> };
    });
    await Promise.all([s.load(), s.load()]);
    render(<Host screen={s} />);
    expect(screen.getByRole('heading', { name: 'Landing' })).toBeTruthy();
    expect(screen.queryByText('loading')).toBeNull();
    expect(loads).toBe(1);
  });

  it('throws a failed load to the error boundary, and a later load tries again', async () => {
    let attempt = 0;
    const s = lazyScreen(async () => {
      attempt++;
      if (attempt === 1) throw new Error('chunk missing');
      return { default: () => <h1>Again</h1> };
    });
    render(
      <Boundary>
        <Host screen={s} />
      </Boundary>,
    );
    expect(await screen.findByText('failed: Error: chunk missing')).toBeTruthy();
    await expect(s.load()).resolves.toBeTypeOf('function');
    expect(attempt).toBe(2);
  });
});
