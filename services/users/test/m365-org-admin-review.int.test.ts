import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, migrate, sql } from '@acme/db';
import type { Database } from '@acme/db';
import { migrations } from '../src/migrations.ts';
import { listOrgAdminReview } from '../src/m365/service.ts';

/**
 * Issue 20 repair: the migration that lists the org-admin grants marketplace activation gave to
 * people who bought nothing (before the purchaser check). It runs on a database that already has
 * such grants: the migrations up to it first, then the data, then the rest.
 */

const REVIEW = '230_m365_org_admin_review';

let db: Database;

beforeAll(async () => {
  db = await createTestDb();
  const before = migrations.findIndex((m) => m.name === REVIEW);
  expect(before).toBeGreaterThan(0);
  await migrate(db, 'users', migrations.slice(0, before));
});

afterAll(async () => {
  await db?.close();
});

async function organisation(name: string) {
  const id = randomUUID();
  await sql`insert into organisations (id, name, products, subscription_status, sso_config, m365, created_at)
    values (${id}, ${name}, '["MAGIC"]'::jsonb, 'subscribed', null, true, now())`.execute(db.kysely);
  return id;
}

async function user(organisationId: string, email: string, role: string) {
  const id = randomUUID();
  await sql`insert into users (id, organisation_id, email, first_name, last_name, role, scope_groups, identity_id, created_at)
    values (${id}, ${organisationId}, ${email}, 'A', 'B', ${role}, '[]'::jsonb, ${randomUUID()}, now())`.execute(
    db.kysely,
  );
  return id;
}

async function subscription(organisationId: string, purchaserEmail: string) {
  await sql`insert into marketplace_subscriptions
      (id, organisation_id, tenant_id, offer_id, plan_id, quantity, status, purchaser_email, activated_at, updated_at)
    values (${randomUUID()}, ${organisationId}, ${randomUUID()}, 'magic-saas', 'magic-team', 1, 'Subscribed',
      ${purchaserEmail}, now(), now())`.execute(db.kysely);
}

describe('migration 230/231: org-admin grants to non-purchasers', () => {
  it('lists the org-admins of marketplace organisations who bought none of their subscriptions, and only them', async () => {
    const contoso = await organisation('Contoso');
    await subscription(contoso, 'megan@contoso.test');
    const megan = await user(contoso, 'megan@contoso.test', 'org-admin');
    // A colleague who replayed Megan's landing-page link before the fix.
    const diego = await user(contoso, 'diego@contoso.test', 'org-admin');
    await user(contoso, 'member@contoso.test', 'member');

    const tailspin = await organisation('Tailspin');
    await subscription(tailspin, 'kim@tailspin.test');
    await subscription(tailspin, 'KIM2@tailspin.test');
    const pat = await user(tailspin, 'pat@tailspin.test', 'org-admin');
    await user(tailspin, 'kim2@tailspin.test', 'org-admin');

    // No marketplace subscription: its org-admins came from the operator, not from an activation.
    const plain = await organisation('Plain');
    await user(plain, 'boss@plain.test', 'org-admin');

    await migrate(db, 'users', migrations);

    const rows = (
      await sql<{
        user_id: string;
        organisation_id: string;
        email: string;
        purchaser_emails: string[];
      }>`select user_id, organisation_id, email, purchaser_emails from m365_org_admin_review order by email`.execute(
        db.kysely,
      )
    ).rows.map((r) => ({ ...r, purchaser_emails: [...r.purchaser_emails].sort() }));
    expect(rows).toEqual([
      {
        user_id: diego,
        organisation_id: contoso,
        email: 'diego@contoso.test',
        purchaser_emails: ['megan@contoso.test'],
      },
      {
        user_id: pat,
        organisation_id: tailspin,
        email: 'pat@tailspin.test',
        purchaser_emails: ['kim2@tailspin.test', 'kim@tailspin.test'].sort(),
      },
    ]);
    expect(rows.map((r) => r.user_id)).not.toContain(megan);
    // What the operator's review route reads: the same rows, by organisation and then email.
    const listed = await listOrgAdminReview(db.kysely);
    expect(listed.map((r) => [r.organisation_id, r.email])).toEqual(
      [
        [contoso, 'diego@contoso.test'],
        [tailspin, 'pat@tailspin.test'],
      ].sort((a, b) => a[0]!.localeCompare(b[0]!)),
    );
    // Nothing is demoted: the review is for the operator.
    const role = await sql<{
      role: string;
    }>`select role from users where id = ${diego}`.execute(db.kysely);
    expect(role.rows[0]!.role).toBe('org-admin');
  });
});
