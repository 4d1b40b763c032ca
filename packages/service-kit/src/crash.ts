import { ConfigError } from './config.ts';

/** The settings a configuration error names, or undefined for any other error. */
function configurationProblem(err: Error): string | undefined {
  if (err instanceof ConfigError) return err.message;
  const issues = (err as { issues?: unknown }).issues;
  if (err.name === 'ZodError' && Array.isArray(issues)) {
    return (issues as { path: PropertyKey[]; message: string }[])
      .map((i) => `${i.path.map(String).join('.')}: ${i.message}`)
      .join('; ');
  }
  return undefined;
}

/**
 * Makes a process end on a programming error instead of carrying on in an unknown state: an
 * unhandled promise rejection or an uncaught exception is logged (one JSON line on stderr) and
 * the process exits with status 1, so a supervisor restarts it and the failure is visible. A
 * configuration error (ConfigError, or the ZodError of a settings schema) is one line naming the
 * setting instead, and status 78.
 * Call once, first thing, in every entry point.
 */
export function exitOnUnhandledErrors(
  name: string,
  io: { log(line: string): void; exit(code: number): void } = {
    log: (line) => process.stderr.write(`${line}\n`),
    exit: (code) => process.exit(code),
  },
): void {
  const fail = (kind: 'unhandledRejection' | 'uncaughtException') => (reason: unknown) => {
    const err = reason instanceof Error ? reason : new Error(String(reason));
    // A missing or malformed setting: one line naming it, no stack trace, and EX_CONFIG.
    const settings = configurationProblem(err);
    if (settings !== undefined) {
      io.log(JSON.stringify({ level: 'fatal', name, msg: `invalid configuration: ${settings}` }));
      io.exit(78);
      return;
    }
    io.log(
      JSON.stringify({
        level: 'fatal',
        name,
        msg: `${kind}: the process stops`,
        err: { type: err.name, message: err.message, stack: err.stack },
      }),
    );
    io.exit(1);
  };
  process.on('unhandledRejection', fail('unhandledRejection'));
  process.on('uncaughtException', fail('uncaughtException'));
}
