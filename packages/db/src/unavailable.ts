// The database being away (restarting, failing over, unreachable) is not a bug: requests that need
// it are answered 503 with Retry-After, the pool reconnects by itself, and nothing half-written
// remains (every write is one transaction, committed or not).

/** What a service's 503 says in Retry-After while its database is away. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/** PostgreSQL's SQLSTATEs for a server that is going away, starting up or not reachable. */
const UNAVAILABLE_SQLSTATES = new Set([
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, shutting down, in recovery)
  '08000', // connection_exception
  '08001', // sqlclient_unable_to_establish_sqlconnection
  '08003', // connection_does_not_exist
  '08004', // sqlserver_rejected_establishment_of_sqlconnection
  '08006', // connection_failure
]);
/** Socket errors of a connection that could not be made or was cut. */
const UNAVAILABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
]);
/** node-postgres's own messages for a connection that ended or never came. */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Cannot use a pool after calling end on the pool',
];

/** Whether `error` (or its cause) says the database cannot be reached right now. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_SOCKET_CODES.has(code)))
      return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.includes(m))) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
