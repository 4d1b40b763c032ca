import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '@acme/users-contract/webhooks';

// The event type chooser's two groups: the security events the console shows, then the
// organisation's own changes. A type the contract adds fails the type check here until it is placed.

export type EventGroup = 'security' | 'organisation';

const GROUP_OF: Readonly<Record<WebhookEventType, EventGroup>> = {
  'session.signed_in': 'security',
  'session.sign_in_failed': 'security',
  'session.ended': 'security',
  'account.locked': 'security',
  'account.unlocked': 'security',
  'second_factor.enabled': 'security',
  'second_factor.disabled': 'security',
  'passkey.added': 'security',
  'passkey.removed': 'security',
  'password.changed': 'security',
  'member.added': 'organisation',
  'member.updated': 'organisation',
  'member.deactivated': 'organisation',
  'member.removed': 'organisation',
  'invitation.created': 'organisation',
  'invitation.accepted': 'organisation',
  'invitation.revoked': 'organisation',
  'role.changed': 'organisation',
  'sso.changed': 'organisation',
  'scim.changed': 'organisation',
  'api_client.changed': 'organisation',
};

const GROUPS: readonly EventGroup[] = ['security', 'organisation'];

/** The groups in order, each with its types in the contract's order. */
export function groupEventTypes(): { group: EventGroup; types: WebhookEventType[] }[] {
  return GROUPS.map((group) => ({
    group,
    types: WEBHOOK_EVENT_TYPES.filter((type) => GROUP_OF[type] === group),
  }));
}
