import { describe, expect, it } from 'vitest';
import { DISABLE_PROTO_FLAG } from '@acme/service-kit/prototype';

describe('the screen tests run as the services do', () => {
  it('without Object.prototype.__proto__ (--disable-proto=delete)', () => {
    expect(process.execArgv).toContain(DISABLE_PROTO_FLAG);
    expect(Object.hasOwn(Object.prototype, '__proto__')).toBe(false);
  });
});
