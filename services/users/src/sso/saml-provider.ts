import type { UsersContext } from '../context.ts';
import type { SamlSettingsJson } from '../db-types.ts';
import { AppError } from '../http/errors.ts';
import { systemOrigin, recordEvent } from '../events/events.ts';
import { fetchText, OutboundError, type OutboundPolicy } from '@acme/service-kit/outbound';
import { listSamlProvidersWithUrl, updateSamlSettings, type SamlProviderRow } from './repository.ts';
import {
  certificateFacts,
  parseSamlIdpMetadata,
  SamlMetadataError,
  type SamlIdpMetadata,
} from './saml-metadata.ts';
import type { SetSamlProviderInput } from './schemas.ts';
import { SAML_METADATA_MAX_BYTES } from '@acme/users-contract/console-sso';

// A SAML provider's IdP metadata (issue 26): pasted once, or fetched from the organisation's URL
// and refreshed daily. A refresh that fails, or that finds metadata we would refuse, keeps the last
// good copy and records an event; so does one that names another entity id (a new IdP is a change
// an admin saves, not one a URL makes).

/** How often a metadata URL is fetched again. */
const SAML_METADATA_REFRESH_MS = 24 * 3_600_000;

const METADATA_ACCEPT = 'application/samlmetadata+xml, application/xml, text/xml';

/** Our service provider, as the IdP knows it: entity id (= metadata URL) and ACS. */
export function serviceProviderUrls(
  identityPublicUrl: string,
  provider: string,
): { entityId: string; metadataUrl: string; acsUrl: string } {
  const metadataUrl = `${identityPublicUrl}/self-service/methods/saml/metadata/${provider}`;
  return {
    entityId: metadataUrl,
    metadataUrl,
    acsUrl: `${identityPublicUrl}/self-service/methods/saml/acs/${provider}`,
  };
}

/** Fetches metadata from `url` under the outbound policy (throws OutboundError). */
export async function fetchSamlMetadata(url: string, policy: OutboundPolicy): Promise<string> {
  return fetchText(url, policy, { accept: METADATA_ACCEPT, maxBytes: SAML_METADATA_MAX_BYTES });
}

function invalidMetadata(error: SamlMetadataError): AppError {
  return new AppError('SAML_METADATA_INVALID', `The SAML metadata is refused: ${error.message}.`);
}

function unreachableMetadata(error: unknown): AppError {
  const reason = error instanceof OutboundError ? error.reason : 'unreachable';
  return new AppError(
    'SAML_METADATA_UNREACHABLE',
    `The SAML metadata URL could not be read (${reason.replace(/_/g, ' ')}).`,
  );
}

/** Parses metadata for an API answer: a refusal is `SAML_METADATA_INVALID` saying why. */
function parseOrRefuse(xml: string): SamlIdpMetadata {
  try {
    return parseSamlIdpMetadata(xml);
  } catch (error) {
    if (error instanceof SamlMetadataError) throw invalidMetadata(error);
    throw error;
  }
}

/** The stored settings of a SAML provider being set: its metadata fetched (or pasted) and parsed. */
export async function samlSettingsOf(
  ctx: UsersContext,
  input: SetSamlProviderInput,
): Promise<SamlSettingsJson> {
  let xml: string;
  if (input.metadataUrl !== undefined) {
    try {
      xml = await fetchSamlMetadata(input.metadataUrl, ctx.config.consoleSso);
    } catch (error) {
      throw unreachableMetadata(error);
    }
  } else {
    xml = input.metadataXml!;
  }
  const metadata = parseOrRefuse(xml);
  return {
    metadataUrl: input.metadataUrl ?? null,
    metadataXml: xml,
    entityId: metadata.entityId,
    ssoUrl: metadata.ssoUrl,
    certificates: metadata.certificates,
    attributes: input.attributes,
    allowIdpInitiated: input.allowIdpInitiated,
    fetchedAt: ctx.clock.now().toISOString(),
    checkedAt: input.metadataUrl === undefined ? null : ctx.clock.now().toISOString(),
    refreshError: null,
  };
}

/** The facts an operator or org-admin sees: entity id, SSO URL, certificates' fingerprints and expiry. */
export function samlFacts(saml: SamlSettingsJson) {
  return {
    idpEntityId: saml.entityId,
    ssoUrl: saml.ssoUrl,
    certificates: saml.certificates.map(certificateFacts),
    metadataUrl: saml.metadataUrl,
    fetchedAt: saml.fetchedAt,
    checkedAt: saml.checkedAt,
    refreshError: saml.refreshError,
    attributes: saml.attributes,
    allowIdpInitiated: saml.allowIdpInitiated,
  };
}

/** What the refresh needs of the service's context. */
type RefreshContext = Pick<UsersContext, 'db' | 'clock' | 'config'>;

/**
 * Why one refresh did not replace the stored copy, or null when it did; `superseded` when a save or
 * another instance's refresh came first (nothing is written then).
 */
async function refreshOne(ctx: RefreshContext, row: SamlProviderRow, now: Date): Promise<string | null> {
  const saml = row.saml;
  let problem: string | null = null;
  let next: SamlSettingsJson = { ...saml, checkedAt: now.toISOString() };
  try {
    const xml = await fetchSamlMetadata(saml.metadataUrl!, ctx.config.consoleSso);
    const metadata = parseSamlIdpMetadata(xml);
    if (metadata.entityId !== saml.entityId) problem = 'entity_id_changed';
    else {
      next = {
        ...next,
        metadataXml: xml,
        ssoUrl: metadata.ssoUrl,
        certificates: metadata.certificates,
        fetchedAt: now.toISOString(),
        refreshError: null,
      };
    }
  } catch (error) {
    if (error instanceof SamlMetadataError) problem = error.problem;
    else if (error instanceof OutboundError) problem = error.reason;
    else problem = 'unreachable';
  }
  if (problem !== null) next = { ...next, refreshError: problem };
  const stored = await ctx.db.transaction().execute(async (trx) => {
    if (!(await updateSamlSettings(trx, row, next))) return false;
    if (problem === null) return true;
    await recordEvent(
      trx,
      systemOrigin(),
      {
        organisationId: row.organisation_id,
        type: 'sso.metadata_refresh_failed',
        subjectId: null,
        details: { provider: row.provider_id, entityId: saml.entityId, reason: problem },
      },
      now,
    );
    return true;
  });
  return stored ? problem : 'superseded';
}

/**
 * Refreshes every SAML provider whose metadata URL was last checked a day ago or more. Returns what
 * happened to each provider it tried (`ok`, or the reason the old copy was kept).
 */
export async function refreshDueSamlMetadata(ctx: RefreshContext): Promise<Record<string, string>> {
  const now = ctx.clock.now();
  const outcome: Record<string, string> = {};
  for (const row of await listSamlProvidersWithUrl(ctx.db)) {
    const last = Date.parse(row.saml.checkedAt ?? row.saml.fetchedAt);
    if (now.getTime() - last < SAML_METADATA_REFRESH_MS) continue;
    outcome[row.provider_id] = (await refreshOne(ctx, row, now)) ?? 'ok';
  }
  return outcome;
}

/** Runs the refresh once an hour (and once at start); each provider is fetched at most daily. */
export function startSamlMetadataRefresh(
  ctx: RefreshContext,
  onError: (error: unknown) => void,
  intervalMs = 3_600_000,
): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const run = () => {
    running = refreshDueSamlMetadata(ctx).catch(onError);
  };
  run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
