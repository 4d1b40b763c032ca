// @vitest-environment jsdom
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LOADING_INDICATOR_DELAY_MS } from '../../constants.ts';
import { Loading, Progress } from './progress.tsx';

// A wait shorter than the delay shows no indicator (no flash); a longer one shows it, announced
// through a live region that was there, busy, from the start.

beforeEach(() => vi.useFakeTimers());
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe.each([
  ['Progress (a page-wide wait)', Progress],
  ['Loading (a section waiting for its data)', Loading],
])('%s', (_, Indicator) => {
  it(`shows nothing at ${LOADING_INDICATOR_DELAY_MS - 1} ms and the label at ${LOADING_INDICATOR_DELAY_MS} ms`, () => {
    render(<Indicator label="Loading…" />);
    const status = screen.getByRole('status');
    expect(status.closest('[aria-busy="true"]')).not.toBeNull();
    act(() => vi.advanceTimersByTime(LOADING_INDICATOR_DELAY_MS - 1));
    expect(screen.queryByText('Loading…')).toBeNull();
    expect(status.textContent).toBe('');
    act(() => vi.advanceTimersByTime(1));
    expect(screen.getByRole('status').textContent).toBe('Loading…');
    expect(screen.getByRole('status')).toBe(status);
  });
});
