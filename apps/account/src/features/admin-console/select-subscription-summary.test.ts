import { describe, expect, it } from 'vitest';
import type { Subscription } from './console-client.ts';
import { consoleCopy as t } from './copy.ts';
import { selectSubscriptionSummary, type SubscriptionSummary } from './select-subscription-summary.ts';

const bought = (status: string, planId = 'magic-team') => ({
  id: 's',
  offerId: 'magic-saas',
  planId,
  quantity: 10,
  status,
  activatedAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:00.000Z',
});

describe('selectSubscriptionSummary', () => {
  it.each<[string, Subscription, SubscriptionSummary]>([
    [
      'direct, subscribed',
      { status: 'subscribed', m365: false, marketplace: [] },
      {
        source: t.subscription.direct,
        plan: t.subscription.directPlan,
        status: t.subscription.states.active,
        attention: false,
      },
    ],
    [
      'direct, not subscribed',
      { status: 'not_subscribed', m365: false, marketplace: [] },
      {
        source: t.subscription.direct,
        plan: t.subscription.directPlan,
        status: t.subscription.states.none,
        attention: true,
      },
    ],
    [
      'marketplace, active',
      { status: 'subscribed', m365: true, marketplace: [bought('Subscribed')] },
      {
        source: t.subscription.marketplace,
        plan: 'magic-team (magic-saas)',
        status: t.subscription.states.active,
        attention: false,
      },
    ],
    [
      'marketplace, the newest (first) decides: suspended',
      {
        status: 'subscribed',
        m365: true,
        marketplace: [bought('Suspended', 'magic-pro'), bought('Subscribed')],
      },
      {
        source: t.subscription.marketplace,
        plan: 'magic-pro (magic-saas)',
        status: t.subscription.states.suspended,
        attention: true,
      },
    ],
    [
      'marketplace, ended',
      { status: 'not_subscribed', m365: true, marketplace: [bought('Unsubscribed')] },
      {
        source: t.subscription.marketplace,
        plan: 'magic-team (magic-saas)',
        status: t.subscription.states.ended,
        attention: true,
      },
    ],
  ])('%s', (_name, subscription, expected) => {
    expect(selectSubscriptionSummary(subscription)).toEqual(expected);
  });
});
