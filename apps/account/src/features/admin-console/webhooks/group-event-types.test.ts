import { WEBHOOK_EVENT_TYPES } from '@acme/users-contract/webhooks';
import { describe, expect, it } from 'vitest';
import { groupEventTypes } from './group-event-types.ts';

describe('groupEventTypes', () => {
  const groups = groupEventTypes();

  it.each([
    [
      'security events first, then organisation changes',
      groups.map((g) => g.group),
      ['security', 'organisation'],
    ],
    [
      'every contract type once, in the contract order',
      groups.flatMap((g) => g.types),
      [...WEBHOOK_EVENT_TYPES],
    ],
    ['sign-ins are security events', groups[0]?.types.includes('session.signed_in'), true],
    ['password changes are security events', groups[0]?.types.includes('password.changed'), true],
    ['role changes are organisation changes', groups[1]?.types.includes('role.changed'), true],
    ['API client changes are organisation changes', groups[1]?.types.includes('api_client.changed'), true],
  ])('%s', (_rule, actual, expected) => {
    expect(actual).toEqual(expected);
  });
});
