/**
 * Watches `Object.prototype`, which every object of a process shares: a request that writes to it
 * (prototype pollution) changes how every service in the process reads every object.
 */
export interface PrototypeWatch {
  /** What was added to, removed from or replaced on `Object.prototype` since the watch began. */
  changes(): string[];
  /**
   * Puts `Object.prototype` back as it was, so that a test that saw it polluted fails alone rather
   * than taking the other files of its worker down with it.
   */
  restore(): void;
}

export function watchObjectPrototype(): PrototypeWatch {
  const proto = Object.prototype as Record<PropertyKey, unknown>;
  const before = new Map(
    Reflect.ownKeys(proto).map((key) => [key, Object.getOwnPropertyDescriptor(proto, key)!]),
  );
  const same = (a: PropertyDescriptor, b: PropertyDescriptor) =>
    a.value === b.value && a.get === b.get && a.set === b.set && a.enumerable === b.enumerable;
  return {
    changes() {
      const now = Reflect.ownKeys(proto);
      const added = now.filter((key) => !before.has(key)).map((key) => `added ${String(key)}`);
      const changed = [...before].flatMap(([key, descriptor]) => {
        const current = Object.getOwnPropertyDescriptor(proto, key);
        if (!current) return [`removed ${String(key)}`];
        return same(current, descriptor) ? [] : [`replaced ${String(key)}`];
      });
      // A probe as an attacker would read it: an inherited key on a fresh object.
      const probe = ({} as Record<string, unknown>).polluted === undefined ? [] : ['({}).polluted is set'];
      return [...added, ...changed, ...probe];
    },
    restore() {
      for (const key of Reflect.ownKeys(proto)) if (!before.has(key)) delete proto[key];
      for (const [key, descriptor] of before) Object.defineProperty(proto, key, descriptor);
    },
  };
}
