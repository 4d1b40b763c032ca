import { useEffect, useEffectEvent } from 'react';

/**
 * Runs a flow's effect command. A screen derives one command from its state with a pure `decide-*`
 * function; this hook runs it once each time the command changes by value, plus whenever `retryKey`
 * changes (a command that must run again although it looks the same, for example a wait that found
 * the lock still held). The runner may return a cleanup, as an effect does.
 */
export function useCommand<C>(
  command: C,
  run: (command: C) => void | (() => void),
  retryKey?: unknown,
): void {
  const key = JSON.stringify([command, retryKey ?? null]);
  const onCommand = useEffectEvent(() => run(command));
  useEffect(() => onCommand(), [key]);
}
