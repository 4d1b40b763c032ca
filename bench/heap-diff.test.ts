import { describe, expect, it } from 'vitest';
import { diffGroups, groupHeap } from './heap-diff.ts';

// A heap snapshot in V8's format, cut down to what groupHeap reads: one row of node fields per node.
function snapshot(nodes: [type: number, name: number, size: number][], strings: string[]) {
  return {
    snapshot: {
      meta: {
        node_fields: ['type', 'name', 'self_size'],
        node_types: [['hidden', 'object', 'string']] as [string[]],
      },
    },
    nodes: nodes.flat(),
    strings,
  };
}

describe('heap-diff', () => {
  it('groups objects by constructor and strings by type, and ranks what grew', () => {
    const strings = ['Session', 'Flow', 'abc'];
    const before = groupHeap(
      snapshot(
        [
          [1, 0, 100],
          [1, 1, 50],
          [2, 2, 10],
        ],
        strings,
      ),
    );
    const after = groupHeap(
      snapshot(
        [
          [1, 0, 100],
          [1, 0, 100],
          [1, 0, 100],
          [1, 1, 50],
          [2, 2, 10],
        ],
        strings,
      ),
    );
    expect(before.get('object:Session')).toEqual({ key: 'object:Session', count: 1, bytes: 100 });
    expect(before.get('string')).toEqual({ key: 'string', count: 1, bytes: 10 });
    const diff = diffGroups(before, after);
    expect(diff.totalBefore).toBe(160);
    expect(diff.totalAfter).toBe(360);
    expect(diff.grew[0]).toEqual({ key: 'object:Session', countDelta: 2, bytesDelta: 200, bytesAfter: 300 });
    expect(diff.grew.find((g) => g.key === 'object:Flow')?.bytesDelta).toBe(0);
  });
});
