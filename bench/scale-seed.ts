// Bulk seeding for the scale bench (bench/scale.ts) and the plan test: people spread over
// organisations of realistic sizes, written straight into the services' tables with set-based
// inserts over generate_series (no API calls, no hashing: every seeded password credential reuses
// one stored argon2id hash). Ids are derived from the person's number, so a measurement can name a
// person without reading anything back.
import { sql, type Database } from '@acme/db';

/** Organisations of 50,000 take this share of the people (at least one large organisation). */
const LARGE_SHARE = 0.3;
const LARGE_SIZE = 50_000;
/** Security events each person has in their organisation's log. */
const EVENTS_PER_PERSON = 10;
/** One in this many people also has an expired session, an old finished flow and an expired grant (cleanup's work). */
const EXPIRED_EVERY = 10;
// Names are two syllables each (400 first names, 400 last names), so that a three-letter prefix
// finds about as few people as in a real directory.
const ALL_SYLLABLES = 'ba ce di fo gu ha je ki lo mu na pe ri so tu va we xi yo zu'.split(' ');
const S = ALL_SYLLABLES.length;

const SEEDED_TABLES = [
  'identity_identities',
  'identity_credentials',
  'identity_credential_identifiers',
  'identity_verifiable_addresses',
  'identity_sessions',
  'identity_flows',
  'users',
  'scim_users',
  'scim_groups',
  'scim_group_members',
  'security_events',
  'oauth2_models',
];

export interface Layout {
  people: number;
  /** Organisations in order: [size, first person's number]. The first `largeCount` are the large ones. */
  organisations: { size: number; first: number }[];
  largeCount: number;
}

/** A few organisations of up to 50,000 hold 30 % of the people; the rest are in organisations of 5 to 94. */
function layout(people: number): Layout {
  const largeCount = Math.max(1, Math.round((people * LARGE_SHARE) / LARGE_SIZE));
  const largeSize = Math.min(LARGE_SIZE, Math.round((people * LARGE_SHARE) / largeCount));
  const organisations: { size: number; first: number }[] = [];
  let next = 0;
  for (let i = 0; i < largeCount; i += 1) {
    organisations.push({ size: largeSize, first: next });
    next += largeSize;
  }
  for (let k = 0; next < people; k += 1) {
    const size = Math.min(people - next, 5 + ((k * 37) % 90));
    organisations.push({ size, first: next });
    next += size;
  }
  return { people, organisations, largeCount };
}

const uuidOf = (prefix: string, n: number) =>
  `${prefix}${n.toString(16).padStart(12, '0')}`.replace(
    /^(.{8})(.{4})(.{4})(.{4})(.{12})$/,
    '$1-$2-$3-$4-$5',
  );
/** The id of person `n` in the identity service. */
export const identityId = (n: number) => uuidOf('1d000000000040008000', n);
export const organisationId = (n: number) => uuidOf('0a900000000040008000', n);
export const emailOf = (n: number) => `p${n}@scale.example`;

/** The SQL form of the ids above, for person or organisation number `expr`. */
const sqlUuid = (prefix: string, expr: string) =>
  `(substr('${prefix}', 1, 8) || '-' || substr('${prefix}', 9, 4) || '-' || substr('${prefix}', 13, 4) || '-' || substr('${prefix}', 17, 4) || '-' || lpad(to_hex(${expr}), 12, '0'))::uuid`;

export interface SeedOptions {
  /** The stored password credential config (one argon2id hash) every seeded person gets. */
  passwordConfig: unknown;
  /** Security events per person (default 10). */
  eventsPerPerson?: number;
  /** Persons per statement (a transaction each): bounds PGlite's memory. */
  chunk?: number;
  onProgress?: (done: number) => void;
}

/**
 * Seeds `people` people (numbered from 0) into the identity, users and oauth2 tables of `db`
 * (migrated already). Each person: an identity with a password credential and verified address, an
 * active session, a grant and a refresh token, a users row, 10 security events; the large
 * organisations' people are SCIM-provisioned and in one of 20 groups. One in 10 people also has an
 * expired session, an old finished flow and an expired grant for the cleanup to remove.
 */
export async function seed(db: Database, people: number, options: SeedOptions): Promise<Layout> {
  const plan = layout(people);
  const k = db.kysely;
  const now = new Date().toISOString();
  await sql`create table seed_orgs (n int primary key, first int not null, size int not null, large boolean not null)`.execute(
    k,
  );
  const orgRows = plan.organisations.map((o, n) => `(${n},${o.first},${o.size},${n < plan.largeCount})`);
  for (let i = 0; i < orgRows.length; i += 5000)
    await sql.raw(`insert into seed_orgs values ${orgRows.slice(i, i + 5000).join(',')}`).execute(k);
  const org = sqlUuid('0a900000000040008000', 'o.n');
  await sql
    .raw(
      `insert into organisations (id, name, subscription_status, created_at)
       select ${org}, 'Organisation ' || o.n, 'subscribed', '${now}' from seed_orgs o`,
    )
    .execute(k);
  // Each large organisation: 20 directory groups.
  await sql
    .raw(
      `insert into scim_groups (id, organisation_id, display_name, created_at, updated_at)
       select ${sqlUuid('06a00000000040008000', 'o.n * 100 + g')}, ${org}, 'Group ' || g, '${now}', '${now}'
       from seed_orgs o, generate_series(0, 19) g where o.large`,
    )
    .execute(k);

  // Bulk-load practice: secondary indexes go before the load and are built once after it (a sorted
  // build is far cheaper than a million random inserts into each); constraints' indexes stay.
  const secondary = await sql<{ indexname: string; indexdef: string }>`
    select indexname, indexdef from pg_indexes
    where schemaname = current_schema() and tablename = any(${SEEDED_TABLES})
      and indexname not in (select conname from pg_constraint)`.execute(k);
  for (const index of secondary.rows) await sql.raw(`drop index ${index.indexname}`).execute(k);

  const chunk = options.chunk ?? 50_000;
  const events = options.eventsPerPerson ?? EVENTS_PER_PERSON;
  const config = JSON.stringify(options.passwordConfig).replaceAll("'", "''");
  const id = sqlUuid('1d000000000040008000', 'p.i');
  const user = sqlUuid('05e00000000040008000', 'p.i');
  const orgOf = sqlUuid('0a900000000040008000', 'p.org');
  const syllable = (expr: string) =>
    `(array[${ALL_SYLLABLES.map((x) => `'${x}'`).join(',')}])[(${expr}) % ${S} + 1]`;
  const first = `initcap(${syllable('p.i')} || ${syllable(`p.i / ${S}`)})`;
  const last = `initcap(${syllable(`p.i / ${S * S}`)} || ${syllable(`p.i * 7 / ${S}`)})`;
  const email = `'p' || p.i || '@scale.example'`;
  const hash = (tag: string) => `md5('${tag}' || p.i)`;
  for (let from = 0; from < people; from += chunk) {
    const to = Math.min(people, from + chunk) - 1;
    const persons = `(select i, o.n as org, o.large, i - o.first as rank from seed_orgs o,
      generate_series(greatest(o.first, ${from}), least(o.first + o.size - 1, ${to})) i
      where o.first <= ${to} and o.first + o.size - 1 >= ${from}) p`;
    const statements = [
      `insert into identity_identities (id, schema_id, state, traits, state_changed_at, created_at, updated_at)
       select ${id}, 'default', 'active', jsonb_build_object('email', ${email}, 'name', jsonb_build_object('first', ${first}, 'last', ${last})),
         '${now}', '${now}', '${now}' from ${persons}`,
      `insert into identity_credentials (id, identity_id, type, config, created_at, updated_at)
       select ${sqlUuid('1c000000000040008000', 'p.i')}, ${id}, 'password', '${config}'::jsonb, '${now}', '${now}' from ${persons}`,
      `insert into identity_credential_identifiers (identifier, type, identity_id)
       select ${email}, 'password', ${id} from ${persons}`,
      `insert into identity_verifiable_addresses (id, identity_id, value, via, verified, status, verified_at, created_at, updated_at)
       select ${sqlUuid('1a000000000040008000', 'p.i')}, ${id}, ${email}, 'email', true, 'completed', '${now}', '${now}', '${now}' from ${persons}`,
      // An active session each; one in 10 people also an expired one (a week and a day past expiry).
      `insert into identity_sessions (id, token_hash, identity_id, active, aal, authentication_methods, authenticated_at, issued_at, expires_at, devices, created_at, updated_at)
       select ${sqlUuid('15000000000040008000', 'p.i * 2 + e')}, ${hash('s')} || e, ${id}, true, 'aal1', '[{"method":"password","aal":"aal1"}]'::jsonb,
         t.at, t.at, t.at + interval '30 days', '[]'::jsonb, t.at, t.at
       from ${persons}, lateral (select e, case when e = 0 then timestamptz '${now}' else timestamptz '${now}' - interval '40 days' end as at
         from generate_series(0, case when p.i % ${EXPIRED_EVERY} = 0 then 1 else 0 end) e) t`,
      `insert into identity_flows (id, kind, type, state, request_url, ui, issued_at, expires_at, created_at, updated_at)
       select ${sqlUuid('1f000000000040008000', 'p.i')}, 'login', 'browser', 'passed_challenge', 'http://scale.example/self-service/login/browser', '{}'::jsonb,
         timestamptz '${now}' - interval '3 days', timestamptz '${now}' - interval '3 days' + interval '1 hour', timestamptz '${now}' - interval '3 days', timestamptz '${now}' - interval '3 days'
       from ${persons} where p.i % ${EXPIRED_EVERY} = 0`,
      `insert into users (id, organisation_id, email, first_name, last_name, role, identity_id, created_at)
       select ${user}, ${orgOf}, ${email}, ${first}, ${last}, case when p.rank = 0 then 'org-admin' else 'member' end, ${id},
         timestamptz '${now}' - interval '1 second' * p.i from ${persons}`,
      `insert into scim_users (user_id, organisation_id, external_id, user_name, created_at, updated_at)
       select ${user}, ${orgOf}, 'ext-' || p.i, ${email}, '${now}', '${now}' from ${persons} where p.large`,
      `insert into scim_group_members (group_id, user_id)
       select ${sqlUuid('06a00000000040008000', 'p.org * 100 + p.i % 20')}, ${user} from ${persons} where p.large`,
      ...[0, 1].map(
        (
          half,
        ) => `insert into security_events (id, organisation_id, occurred_at, type, actor_kind, subject_id, details)
       select ${sqlUuid('5e000000000040008000', `p.i * ${events} + e`)}, ${orgOf},
         timestamptz '${now}' - interval '1 second' * ((p.i * ${events} + e) % 7776000), 'member.signed_in', 'person', ${user}, '{}'::jsonb
       from ${persons}, generate_series(${Math.floor((half * events) / 2)}, ${Math.floor(((half + 1) * events) / 2) - 1}) e`,
      ),
      // A grant and a refresh token each (as oidc-provider stores them); one in 10 also an expired pair.
      `insert into oauth2_models (model, id, payload, grant_id, expires_at)
       select m.model, m.model || '-' || lpad(p.i::text, 8, '0') || '-' || e, jsonb_build_object('kind', m.model, 'accountId', ${id}::text, 'clientId', 'scale'),
         'grant-' || lpad(p.i::text, 8, '0') || '-' || e,
         case when e = 0 then timestamptz '${now}' + interval '30 days' else timestamptz '${now}' - interval '1 day' end
       from ${persons}, (values ('Grant'), ('RefreshToken')) m(model),
         generate_series(0, case when p.i % ${EXPIRED_EVERY} = 0 then 1 else 0 end) e`,
    ];
    // The tables load side by side, each statement on a connection of its own.
    await Promise.all(
      statements.map((statement) =>
        k.transaction().execute(async (tx) => {
          // Bulk load: no per-row triggers (change notices, foreign-key checks); the rows are consistent by construction.
          await sql`set local session_replication_role = replica`.execute(tx);
          const t0 = performance.now();
          await sql.raw(statement).execute(tx);
          if (process.env.SCALE_SEED_TRACE)
            console.log(Math.round(performance.now() - t0), statement.slice(0, 60));
        }),
      ),
    );
    options.onProgress?.(to + 1);
  }
  await sql`drop table seed_orgs`.execute(k);
  for (const index of secondary.rows) await sql.raw(index.indexdef).execute(k);
  // As autovacuum would have left tables loaded long ago: statistics, the visibility map (index-only
  // scans) and hint bits set. Without it, autovacuum works through the fresh million rows while the
  // workloads run, and the first reads of each page write its hint bits: both land in the latencies
  // measured at the largest size (SCIM's `eq` lookup at p99 40 ms, against 2 ms at 10k).
  for (const table of SEEDED_TABLES) await sql.raw(`vacuum (analyze) ${table}`).execute(k);
  return plan;
}
