// The CPU time a V8 CPU profile (`node --cpu-prof`, the `.cpuprofile` format) spent in one body of
// code: in its own functions and in everything they call, except what they only pass through to the
// caller's code (a wrapper that calls the function it wraps). For bench/tracing-share.ts, which asks
// how much of the services' time is tracing's own work.

/** A function of the profile's call tree. */
export interface ProfileFrame {
  functionName: string;
  url: string;
}

/** One node of the call tree: a frame called from its parent node. */
interface ProfileNode {
  id: number;
  callFrame: ProfileFrame;
  children?: number[];
}

/** The `.cpuprofile` format (microseconds). */
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Which frames are the code measured, and which of them only pass through to their callers' code. */
export interface CodeOf {
  own(frame: ProfileFrame): boolean;
  passThrough(frame: ProfileFrame): boolean;
}

export interface ProfileShare {
  /** Microseconds the process was busy (every sample but idle ones). */
  busyUs: number;
  /** Microseconds in the code: a sample counts when, walking up from its function, an own frame comes before a pass-through frame (the sampled function itself counts when it is own). */
  ownUs: number;
}

const IDLE = '(idle)';

/**
 * The busy and own time of the samples taken between `fromUs` and `toUs` (the profile's clock:
 * `startTime` plus the deltas). Each sample stands for the time until the next one.
 */
export function profileShare(
  profile: CpuProfile,
  code: CodeOf,
  fromUs = -Infinity,
  toUs = Infinity,
): ProfileShare {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parents = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parents.set(child, n.id);
  // Whether a node's samples are the code's: decided once per node.
  const owned = new Map<number, boolean>();
  const isOwned = (id: number): boolean => {
    const known = owned.get(id);
    if (known !== undefined) return known;
    const frame = nodes.get(id)!.callFrame;
    let result = code.own(frame);
    if (!result) {
      for (let at = parents.get(id); at !== undefined; at = parents.get(at)) {
        const up = nodes.get(at)!.callFrame;
        if (code.passThrough(up)) break;
        if (code.own(up)) {
          result = true;
          break;
        }
      }
    }
    owned.set(id, result);
    return result;
  };
  let busyUs = 0;
  let ownUs = 0;
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    const span = profile.timeDeltas[i + 1] ?? 0;
    if (at < fromUs || at >= toUs) continue;
    const id = profile.samples[i]!;
    if (nodes.get(id)?.callFrame.functionName === IDLE) continue;
    busyUs += span;
    if (isOwned(id)) ownUs += span;
  }
  return { busyUs, ownUs };
}
