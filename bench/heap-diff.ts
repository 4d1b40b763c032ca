// `node --import tsx bench/heap-diff.ts before.heapsnapshot after.heapsnapshot`: what grew between two
// V8 heap snapshots (the soak writes them with SOAK_HEAP_SNAPSHOTS=1), grouped by node type and
// constructor name, largest growth first. Growth that keeps rising from run to run is a leak;
// growth that is the same on every run is something filled once (caches, pools, compiled code).
import { readFile } from 'node:fs/promises';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

export interface Group {
  key: string;
  count: number;
  bytes: number;
}

/** Sums self sizes per "type:name" (e.g. `object:Session`, `closure:onRequest`, `string`). */
export function groupHeap(snapshot: Snapshot): Map<string, Group> {
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const groups = new Map<string, Group>();
  const { nodes, strings } = snapshot;
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + typeAt]!] ?? 'unknown';
    // Strings and numbers are grouped by type only: their "name" is their value.
    const named = type === 'object' || type === 'closure' || type === 'native' || type === 'hidden';
    const key = named ? `${type}:${strings[nodes[i + nameAt]!] ?? '?'}` : type;
    const group = groups.get(key) ?? { key, count: 0, bytes: 0 };
    group.count++;
    group.bytes += nodes[i + sizeAt]!;
    groups.set(key, group);
  }
  return groups;
}

export function diffGroups(before: Map<string, Group>, after: Map<string, Group>, top = 25) {
  const keys = new Set([...before.keys(), ...after.keys()]);
  const rows = [...keys].map((key) => {
    const b = before.get(key) ?? { key, count: 0, bytes: 0 };
    const a = after.get(key) ?? { key, count: 0, bytes: 0 };
    return { key, countDelta: a.count - b.count, bytesDelta: a.bytes - b.bytes, bytesAfter: a.bytes };
  });
  const total = (m: Map<string, Group>) => [...m.values()].reduce((sum, g) => sum + g.bytes, 0);
  return {
    totalBefore: total(before),
    totalAfter: total(after),
    grew: rows.sort((x, y) => y.bytesDelta - x.bytesDelta).slice(0, top),
  };
}

async function load(file: string): Promise<Snapshot> {
  return JSON.parse(await readFile(file, 'utf8')) as Snapshot;
}

if (import.meta.main) {
  const [beforeFile, afterFile] = process.argv.slice(2);
  if (!beforeFile || !afterFile) {
    console.error('usage: heap-diff.ts before.heapsnapshot after.heapsnapshot');
    process.exit(2);
  }
  const before = groupHeap(await load(beforeFile));
  const after = groupHeap(await load(afterFile));
  const diff = diffGroups(before, after);
  const mb = (n: number) => (n / 1024 / 1024).toFixed(2);
  console.log(`heap: ${mb(diff.totalBefore)} MB → ${mb(diff.totalAfter)} MB`);
  for (const row of diff.grew)
    console.log(
      `${mb(row.bytesDelta).padStart(8)} MB  ${String(row.countDelta).padStart(8)} objects  ${row.key} (now ${mb(row.bytesAfter)} MB)`,
    );
}
