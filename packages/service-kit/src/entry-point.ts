import { exitOnUnhandledErrors } from './crash.ts';
import { startIdleGc } from './idle-gc.ts';
import { hardenPrototype } from './prototype.ts';

/**
 * First thing in every process's entry point: an unhandled error ends the process (a bad setting
 * with status 78 and one line naming it), `Object.prototype.__proto__` is removed when the process
 * was started without `--disable-proto=delete`, and memory goes back to the system once load has passed.
 */
export function enterProcess(name: string): void {
  exitOnUnhandledErrors(name);
  hardenPrototype(name);
  startIdleGc();
}

/** The one line a service writes once its listeners are up. */
export function logListening(name: string, urls: unknown): void {
  process.stderr.write(`${JSON.stringify({ level: 'info', name, msg: 'listening', urls })}\n`);
}
