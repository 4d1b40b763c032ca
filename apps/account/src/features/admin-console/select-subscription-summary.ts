import type { Subscription } from './console-client.ts';
import { consoleCopy as t } from './copy.ts';

// What the subscription screen says. Pure: the user service's answer in words. The plan is the
// newest marketplace subscription's; an organisation outside the marketplace has its own state.

export interface SubscriptionSummary {
  source: string;
  plan: string;
  status: string;
  /** Whether the status asks for the administrator's attention. */
  attention: boolean;
}

const MARKETPLACE_STATUS: Readonly<Record<string, string>> = {
  Subscribed: t.subscription.states.active,
  Suspended: t.subscription.states.suspended,
  Unsubscribed: t.subscription.states.ended,
};

export function selectSubscriptionSummary(subscription: Subscription): SubscriptionSummary {
  const newest = subscription.marketplace[0];
  if (newest) {
    return {
      source: t.subscription.marketplace,
      plan: `${newest.planId} (${newest.offerId})`,
      status: MARKETPLACE_STATUS[newest.status] ?? newest.status,
      attention: newest.status !== 'Subscribed',
    };
  }
  const subscribed = subscription.status === 'subscribed';
  return {
    source: t.subscription.direct,
    plan: t.subscription.directPlan,
    status: subscribed ? t.subscription.states.active : t.subscription.states.none,
    attention: !subscribed,
  };
}
