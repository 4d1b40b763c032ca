/**
 * Makes a process end on a programming error instead of carrying on in an unknown state: an
 * unhandled promise rejection or an uncaught exception is logged (one JSON line on stderr) and
 * the process exits with status 1, so a supervisor restarts it and the failure is visible.
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
