import type { SecurityEventType } from '@acme/users-contract/console';
import type { WebhookEventType } from '@acme/users-contract/webhooks';

/**
 * The webhook type each event of the console's log is delivered as (issue 35), or null for the few
 * that are not delivered (they are in the events feed). The identity service's security events,
 * then the organisation's own changes.
 */
const WEBHOOK_TYPE_OF: Record<SecurityEventType, WebhookEventType | null> = {
  'signin.succeeded': 'session.signed_in',
  'signin.failed': 'session.sign_in_failed',
  'session.ended': 'session.ended',
  'account.locked': 'account.locked',
  'account.unlocked': 'account.unlocked',
  'two_factor.added': 'second_factor.enabled',
  'two_factor.removed': 'second_factor.disabled',
  'two_factor.reset': 'second_factor.disabled',
  'backup_codes.regenerated': 'second_factor.enabled',
  'backup_code.used': null,
  'passkey.added': 'passkey.added',
  'passkey.removed': 'passkey.removed',
  'password.changed': 'password.changed',
  'recovery.used': null,
  'account.reclaimed': null,
  'member.invited': 'invitation.created',
  'invitation.resent': 'invitation.created',
  'member.joined': 'invitation.accepted',
  'invitation.revoked': 'invitation.revoked',
  'member.deactivated': 'member.deactivated',
  'member.deleted': 'member.removed',
  'member.reactivated': 'member.updated',
  'member.sessions_ended': 'member.updated',
  'member.unlocked': 'member.updated',
  'member.two_factor_reset': 'member.updated',
  'member.role_changed': 'role.changed',
  'sso.provider_changed': 'sso.changed',
  'sso.metadata_refresh_failed': 'sso.changed',
  'scim.token_created': 'scim.changed',
  'scim.token_revoked': 'scim.changed',
  'scim.settings_changed': 'scim.changed',
  'api_client.created': 'api_client.changed',
  'api_client.revoked': 'api_client.changed',
  'organisation.self_signup_changed': null,
  'organisation.event_retention_changed': null,
  'subscription.changed': null,
  'trusted_networks.changed': null,
  // An endpoint's own changes are in the feed, never delivered: no delivery can cause another.
  'webhook.endpoint_created': null,
  'webhook.endpoint_changed': null,
  'webhook.endpoint_paused': null,
  'webhook.endpoint_resumed': null,
  'webhook.secret_rotated': null,
  'webhook.endpoint_deleted': null,
};

/** A member who joined by self sign-up was added; any other joined by accepting an invitation. */
export function webhookTypeOf(type: string, details: Record<string, string>): WebhookEventType | null {
  if (type === 'member.joined' && details.via === 'self_sign_up') return 'member.added';
  return Object.hasOwn(WEBHOOK_TYPE_OF, type) ? WEBHOOK_TYPE_OF[type as SecurityEventType] : null;
}
