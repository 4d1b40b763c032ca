// The OpenTelemetry contexts a traced request makes (its parent's, its span's, each call's): each a
// link to the context it extends, holding the one value it adds. The API's own context copies its
// parent's Map and makes three closures for every value set, which a heap profile of a traced request
// (`BENCH_ONLY=tracing npm run bench`, its unit costs) counted among the largest of tracing's
// allocations. A lookup walks the links: a request's contexts hold a few values.
import type { Context } from '@opentelemetry/api';

/** Past this many links a new context starts a fresh chain of the values still set. */
const MAX_DEPTH = 32;

const REMOVED = Symbol('removed');

export class ChainedContext implements Context {
  readonly parent: ChainedContext | undefined;
  readonly key: symbol | undefined;
  /** The value `key` takes from here on; REMOVED when this link deletes it. */
  readonly value: unknown;
  readonly depth: number;

  private constructor(parent: ChainedContext | undefined, key: symbol | undefined, value: unknown) {
    this.parent = parent;
    this.key = key;
    this.value = value;
    this.depth = parent ? parent.depth + 1 : 0;
  }

  /** The empty context: where a request that continues no trace starts. */
  static readonly ROOT = new ChainedContext(undefined, undefined, undefined);

  getValue(key: symbol): unknown {
    const value = valueIn(this, key);
    return value === REMOVED ? undefined : value;
  }

  setValue(key: symbol, value: unknown): Context {
    return extend(this, key, value);
  }

  deleteValue(key: symbol): Context {
    return extend(this, key, REMOVED);
  }

  /** A context of `parent` with `key` set to `value` (REMOVED: deleted). */
  static link(parent: ChainedContext, key: symbol, value: unknown): ChainedContext {
    return new ChainedContext(parent, key, value);
  }
}

/** The newest value of `key` along the chain from `from` (REMOVED if deleted, undefined if never set). */
function valueIn(from: ChainedContext, key: symbol): unknown {
  for (let link: ChainedContext | undefined = from; link; link = link.parent)
    if (link.key === key) return link.value;
  return undefined;
}

function extend(from: ChainedContext, key: symbol, value: unknown): ChainedContext {
  if (from.depth < MAX_DEPTH) return ChainedContext.link(from, key, value);
  // A long chain (contexts extended in a loop) is rebuilt from the values still set.
  const values = new Map<symbol, unknown>([[key, value]]);
  for (let link: ChainedContext | undefined = from; link; link = link.parent)
    if (link.key !== undefined && !values.has(link.key)) values.set(link.key, link.value);
  let fresh = ChainedContext.ROOT;
  for (const [k, v] of values) if (v !== REMOVED) fresh = ChainedContext.link(fresh, k, v);
  return fresh;
}
