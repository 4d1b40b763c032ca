import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance } from 'fastify';
import type {
  KyselyPlugin,
  OperationNode,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import type { SessionCache } from './cache.ts';

/**
 * Read-your-writes on one instance. Change notices arrive on their own connection, a little after the
 * writer's commit; a client that changes something and at once asks the same instance for whoami
 * could be answered from the cache before that instance has seen its own notice. So a request that
 * wrote to a table behind whoami empties this instance's cache before its response is sent (after the
 * handler's transaction has committed); other instances rely on the notices.
 */

/** The tables a whoami answer is read from (their triggers send the change notices). */
const WATCHED = new Set([
  'identity_identities',
  'identity_sessions',
  'identity_credentials',
  'identity_verifiable_addresses',
  'identity_recovery_addresses',
]);

const RAW_WRITE =
  /^\s*(?:with\b[\s\S]*?\)\s*)?(?:insert\s+into|update|delete\s+from|truncate(?:\s+table)?)\s+(?:only\s+)?"?(identity_[a-z_]+)/i;

interface RequestWrites {
  wrote: boolean;
}

const current = new AsyncLocalStorage<RequestWrites>();

function tableOf(node: OperationNode | undefined): string | undefined {
  if (!node) return undefined;
  if (node.kind === 'AliasNode') return tableOf((node as unknown as { node: OperationNode }).node);
  if (node.kind === 'TableNode')
    return (node as unknown as { table: { identifier: { name: string } } }).table.identifier.name;
  return undefined;
}

const ROOT_KINDS = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode', 'RawNode']);
const isRoot = (node: OperationNode): node is RootOperationNode => ROOT_KINDS.has(node.kind);

/** Whether the query writes to a watched table (query builder or plain SQL). */
export function writesWatchedTable(node: RootOperationNode): boolean {
  switch (node.kind) {
    case 'InsertQueryNode':
      return WATCHED.has(tableOf(node.into) ?? '');
    case 'UpdateQueryNode':
      return WATCHED.has(tableOf(node.table) ?? '');
    case 'DeleteQueryNode':
      return node.from.froms.some((f) => WATCHED.has(tableOf(f) ?? ''));
    case 'RawNode': {
      const m = RAW_WRITE.exec(node.sqlFragments.join('?'));
      if (m) return WATCHED.has(m[1]!.toLowerCase());
      // A query builder embedded in plain SQL (e.g. an insert as a data-modifying CTE).
      return node.parameters.some((p) => isRoot(p) && writesWatchedTable(p));
    }
    default:
      return false;
  }
}

/** Marks the current request as having written to a watched table. */
export class LocalWritesPlugin implements KyselyPlugin {
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const writes = current.getStore();
    if (writes && !writes.wrote && writesWatchedTable(args.node)) writes.wrote = true;
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

/** Tracks each request's writes and empties the local cache before answering one that wrote. */
export function registerLocalWrites(app: FastifyInstance, cache: SessionCache): void {
  const stores = new WeakMap<object, RequestWrites>();
  app.addHook('onRequest', (req, _reply, done) => {
    const writes: RequestWrites = { wrote: false };
    stores.set(req, writes);
    current.run(writes, done);
  });
  // A body is read from the socket's stream events; nothing promises that the handler which follows
  // body parsing still runs in the async context entered above, so enter it again before the handler.
  app.addHook('preHandler', (req, _reply, done) => {
    const writes = stores.get(req);
    if (writes) current.run(writes, done);
    else done();
  });
  app.addHook('onSend', async (req, _reply, payload) => {
    if (stores.get(req)?.wrote) cache.clear();
    return payload;
  });
}
