import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { adminAuthHeaders, adminKeySchema, callerKey } from '@acme/service-kit/admin-access';
import { settingsFromFiles, type PartSettings } from '@acme/service-kit/config';
import { importIdentities } from './cli-import.ts';

export interface CliIo {
  env: Record<string, string | undefined>;
  out(text: string): void;
  err(text: string): void;
}

const USAGE = `Usage: npm run admin -- <command> [options]

Commands:
  org:create --name <name> --domains <a.com,b.com> --products <Platform,MAGIC>
             [--subscription subscribed|not_subscribed] [--sso-provider <id>] [--m365]
             [--m365-tenants <tenantId,…>]
  org:list
  org:get --id <organisationId>
  org:self-signup --org <organisationId> (--on | --off | --show)
          self sign-up for the organisation's domains (refused where it enforces SSO)
  user:create --org <organisationId> --email <email> --first <name> --last <name> --role <role>
              [--password <password>] [--scope-groups <a,b>] [--git-user]
  user:list [--org <organisationId>]
  user:get --id <userId>
  user:deactivate --id <userId>       deprovisions at once: sessions, grants and the access tokens
                                      already issued, and the API clients the person created end
                                      (the organisation's last org-admin who can sign in is kept)
  user:reactivate --id <userId>
  invite:create --org <organisationId> --email <email> --first <name> --last <name> --role <role>
                [--scope-groups <a,b>] [--git-user]
  invite:list [--org <organisationId>]
  invite:resend --id <invitationId>
  invite:revoke --id <invitationId>
  terms:export [--org <organisationId>] [--format csv|json]
  api-client:create --org <organisationId> --scope-groups <a,b> [--name <name>] [--as <admin email>]
                    (prints the client id and its secret: the only time the secret is shown)
  api-client:list --org <organisationId>
  api-client:revoke --id <clientId> [--as <admin email>]
  account:unlock --email <email>      ends the sign-in lockout of an address (password, codes, 2FA)
  identities:import <file.jsonl>      one identity a line (Kratos's identity body, password hashes in
                                      argon2id, bcrypt, PBKDF2 or scrypt); safe to run again: an
                                      address with an account already is skipped; progress on stderr
  client:create [--file <client.json>] [--name <name>] [--grant-types <a,b>] [--redirect-uris <a,b>]
                [--post-logout-redirect-uris <a,b>] [--auth-method <method>] [--scopes <a,b>]
                [--owner <owner>] [--skip-consent]
                an OAuth 2.0 client (Hydra's client document; flags win over the file); prints
                it with its secret: the only time the secret is shown
  client:list [--owner <owner>] [--name <name>] [--page-size <n>] [--page-token <token>]
  client:show --id <clientId>
  client:update --id <clientId> --file <file.json>   a JSON Patch (RFC 6902) array, or a whole
                client document that replaces the client
  client:delete --id <clientId>       the client's grants and tokens end at once
  client:rotate-secret --id <clientId>  prints the new secret; the old one is accepted for
                                      OAUTH2_CLIENT_SECRET_GRACE_SECONDS
  keys:rotate   a new token-signing key; the old one stays published until its tokens expire
  keys:revoke --kid <kid>             emergency: the key leaves the JWKS now and every token it
                                      signed is refused (the current key: keys:rotate first)
  requests:list [--limit <n>]         Microsoft 365 people who asked to join (agent service)
  m365:admin-review                   org-admins that marketplace activation gave to non-purchasers
                                      (found by the issue-20 repair migration; nothing is demoted)
  sso:set --org <organisationId> --issuer <url> --client-id <id> [--client-secret <secret>]
          [--provider <id>] [--scopes openid,email,profile] [--jit on|off] [--userinfo]
          [--enforce on|off]  (on: no password sign-in or recovery for the organisation's domains)
          (without --client-secret the secret is read from SSO_CLIENT_SECRET, keeping it out of
          shell history and process lists)
  sso:set --org <organisationId> --protocol saml (--metadata-url <url> | --metadata-file <path>)
          [--provider <id>] [--jit on|off] [--enforce on|off] [--allow-idp-initiated on|off]
          [--attr-email <name>|nameid] [--attr-first-name <name>] [--attr-last-name <name>]
          [--attr-groups <name>]  SAML 2.0: the IdP's metadata (a URL is fetched again daily);
          attributes are the SAML Attribute Names the IdP sends (defaults email, firstName,
          lastName, groups; --attr-email nameid takes the address from the NameID)
  sso:show --org <organisationId>     (also sso:get) protocol, issuer or IdP entity id,
          certificate fingerprints and expiry; never a secret
  sso:remove --org <organisationId>
  sso:break-glass --org <organisationId> (--user <userId> | --clear)
          the one org-admin exempt from --enforce (for when the organisation's provider is down)
  webhook:create --org <organisationId> --url <url> [--events <type,type>]
          a signed webhook endpoint (every event type when --events is left out); prints its id
          and its whsec_ signing secret: the only time the secret is shown
  webhook:list --org <organisationId>
  webhook:delete --org <organisationId> --id <endpointId>
  webhook:rotate-secret --org <organisationId> --id <endpointId>
          prints the new secret; the old one signs beside it for 24 hours

Talks to the user service admin API at USERS_ADMIN_URL (default http://localhost:4456), for
account:unlock and identities:import to the identity admin API at IDENTITY_ADMIN_URL (default http://localhost:4434), for
client:* and keys:* to the authorization server's admin API at OAUTH2_ADMIN_URL (default
http://localhost:4445), for requests:list to the agent service admin API at AGENT_ADMIN_URL (default
http://localhost:4467), and prints JSON. When the admin APIs require a key, set USERS_ADMIN_KEY,
IDENTITY_ADMIN_KEY, OAUTH2_ADMIN_KEY and AGENT_ADMIN_KEY.`;

class UsageError extends Error {}

const options = {
  name: { type: 'string' },
  domains: { type: 'string' },
  products: { type: 'string' },
  subscription: { type: 'string' },
  'sso-provider': { type: 'string' },
  m365: { type: 'boolean' },
  on: { type: 'boolean' },
  off: { type: 'boolean' },
  show: { type: 'boolean' },
  id: { type: 'string' },
  org: { type: 'string' },
  email: { type: 'string' },
  first: { type: 'string' },
  last: { type: 'string' },
  role: { type: 'string' },
  password: { type: 'string' },
  'scope-groups': { type: 'string' },
  'git-user': { type: 'boolean' },
  format: { type: 'string' },
  as: { type: 'string' },
  limit: { type: 'string' },
  'm365-tenants': { type: 'string' },
  issuer: { type: 'string' },
  'client-id': { type: 'string' },
  kid: { type: 'string' },
  'client-secret': { type: 'string' },
  provider: { type: 'string' },
  scopes: { type: 'string' },
  jit: { type: 'string' },
  enforce: { type: 'string' },
  user: { type: 'string' },
  clear: { type: 'boolean' },
  userinfo: { type: 'boolean' },
  protocol: { type: 'string' },
  url: { type: 'string' },
  events: { type: 'string' },
  'metadata-url': { type: 'string' },
  'metadata-file': { type: 'string' },
  file: { type: 'string' },
  'grant-types': { type: 'string' },
  'redirect-uris': { type: 'string' },
  'post-logout-redirect-uris': { type: 'string' },
  'auth-method': { type: 'string' },
  owner: { type: 'string' },
  'skip-consent': { type: 'boolean' },
  'page-size': { type: 'string' },
  'page-token': { type: 'string' },
  'allow-idp-initiated': { type: 'string' },
  'attr-email': { type: 'string' },
  'attr-first-name': { type: 'string' },
  'attr-last-name': { type: 'string' },
  'attr-groups': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>['values'];

const list = (value: string | undefined): string[] | undefined =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item.length > 0);

function required(values: Values, name: keyof Values): string {
  const value = values[name];
  if (typeof value !== 'string' || value.length === 0) throw new UsageError(`--${name} is required`);
  return value;
}

const orgQuery = (values: Values): string =>
  values.org === undefined ? '' : `?organisationId=${encodeURIComponent(values.org)}`;

interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
  /** Which admin API answers: the user service's (default), the identity service's, the authorization server's or the agent service's. */
  api?: keyof typeof ADMIN_APIS;
}

const ADMIN_APIS = {
  users: { urlVar: 'USERS_ADMIN_URL', keyVar: 'USERS_ADMIN_KEY', defaultUrl: 'http://localhost:4456' },
  identity: {
    urlVar: 'IDENTITY_ADMIN_URL',
    keyVar: 'IDENTITY_ADMIN_KEY',
    defaultUrl: 'http://localhost:4434',
  },
  oauth2: { urlVar: 'OAUTH2_ADMIN_URL', keyVar: 'OAUTH2_ADMIN_KEY', defaultUrl: 'http://localhost:4445' },
  agent: { urlVar: 'AGENT_ADMIN_URL', keyVar: 'AGENT_ADMIN_KEY', defaultUrl: 'http://localhost:4467' },
} as const;

const API_NAMES: Record<keyof typeof ADMIN_APIS, string> = {
  users: "the user service's",
  identity: "the identity service's",
  oauth2: "the authorization server's",
  agent: "the agent service's",
};

/** The command line's settings, from the table above, for the generated configuration reference. */
export const cliSettings: PartSettings = {
  part: 'admin-cli',
  title: 'Admin command line (`npm run admin`)',
  schemas: [
    z.object({
      ...Object.fromEntries(
        (Object.keys(ADMIN_APIS) as (keyof typeof ADMIN_APIS)[]).flatMap((api) => [
          [
            ADMIN_APIS[api].urlVar,
            z.url().default(ADMIN_APIS[api].defaultUrl).describe(`Base URL of ${API_NAMES[api]} admin API.`),
          ],
          [
            ADMIN_APIS[api].keyVar,
            z
              .string()
              .optional()
              .describe(`Bearer key sent to ${API_NAMES[api]} admin API, when it requires one.`)
              .meta({ secret: true }),
          ],
        ]),
      ),
      SSO_CLIENT_SECRET: z
        .string()
        .optional()
        .describe(
          'The client secret of `sso:set` when --client-secret is not given (kept out of the shell history).',
        )
        .meta({ secret: true }),
    }),
  ],
  renames: {},
};

const SAML_ATTRIBUTE_OPTIONS = {
  email: 'attr-email',
  firstName: 'attr-first-name',
  lastName: 'attr-last-name',
  groups: 'attr-groups',
} as const;

/** `sso:set --protocol saml`: the metadata (URL, or a file read here and sent as XML) and settings. */
function samlBody(values: Values): Record<string, unknown> {
  for (const name of ['issuer', 'client-id', 'client-secret', 'scopes', 'userinfo'] as const) {
    if (values[name] !== undefined) throw new UsageError(`--${name} is for OIDC providers, not SAML`);
  }
  const url = values['metadata-url'];
  const file = values['metadata-file'];
  if ((url === undefined) === (file === undefined))
    throw new UsageError('give exactly one of --metadata-url and --metadata-file');
  let metadata: { metadataUrl: string } | { metadataXml: string };
  if (url !== undefined) metadata = { metadataUrl: url };
  else {
    try {
      metadata = { metadataXml: readFileSync(file!, 'utf8') };
    } catch (error) {
      throw new UsageError(`cannot read --metadata-file: ${(error as Error).message}`);
    }
  }
  const attributes = Object.fromEntries(
    Object.entries(SAML_ATTRIBUTE_OPTIONS)
      .filter(([, option]) => values[option] !== undefined)
      .map(([attribute, option]) => [attribute, values[option]]),
  );
  const idpInitiated = values['allow-idp-initiated'];
  return {
    protocol: 'saml',
    ...metadata,
    ...(Object.keys(attributes).length > 0 ? { attributes } : {}),
    ...(idpInitiated === undefined ? {} : { allowIdpInitiated: idpInitiated === 'on' }),
  };
}

function readJsonFile(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch (error) {
    throw new UsageError(`cannot read --file as JSON: ${(error as Error).message}`);
  }
}

/** `client:create`: the file's client document with the flags laid over it. */
function clientDocument(values: Values): Record<string, unknown> {
  const base = values.file === undefined ? {} : readJsonFile(values.file);
  if (typeof base !== 'object' || base === null || Array.isArray(base))
    throw new UsageError('--file must hold a client document (a JSON object)');
  const flags: Record<string, unknown> = {
    client_name: values.name,
    grant_types: list(values['grant-types']),
    redirect_uris: list(values['redirect-uris']),
    post_logout_redirect_uris: list(values['post-logout-redirect-uris']),
    token_endpoint_auth_method: values['auth-method'],
    scope: list(values.scopes)?.join(' '),
    owner: values.owner,
    skip_consent: values['skip-consent'],
  };
  return { ...base, ...Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined)) };
}

const clientPath = (values: Values) => `/admin/clients/${encodeURIComponent(required(values, 'id'))}`;

function clientCall(command: string, values: Values): Call | undefined {
  switch (command) {
    case 'client:create':
      return { api: 'oauth2', method: 'POST', path: '/admin/clients', body: clientDocument(values) };
    case 'client:list': {
      const query = new URLSearchParams();
      if (values.owner !== undefined) query.set('owner', values.owner);
      if (values.name !== undefined) query.set('client_name', values.name);
      if (values['page-size'] !== undefined) query.set('page_size', values['page-size']);
      if (values['page-token'] !== undefined) query.set('page_token', values['page-token']);
      const q = query.toString();
      return { api: 'oauth2', method: 'GET', path: `/admin/clients${q ? `?${q}` : ''}` };
    }
    case 'client:show':
      return { api: 'oauth2', method: 'GET', path: clientPath(values) };
    case 'client:update': {
      const body = readJsonFile(required(values, 'file'));
      return { api: 'oauth2', method: Array.isArray(body) ? 'PATCH' : 'PUT', path: clientPath(values), body };
    }
    case 'client:delete':
      return { api: 'oauth2', method: 'DELETE', path: clientPath(values) };
    case 'client:rotate-secret':
      return { api: 'oauth2', method: 'POST', path: `${clientPath(values)}/secrets/rotate` };
    default:
      return undefined;
  }
}

function toCall(command: string, values: Values, env: CliIo['env']): Call {
  const client = clientCall(command, values);
  if (client) return client;
  switch (command) {
    case 'org:create':
      return {
        method: 'POST',
        path: '/admin/organisations',
        body: {
          name: required(values, 'name'),
          domains: list(required(values, 'domains')),
          products: list(values.products) ?? [],
          ...(values.subscription === undefined ? {} : { subscriptionStatus: values.subscription }),
          ...(values['sso-provider'] === undefined ? {} : { sso: { provider: values['sso-provider'] } }),
          ...(values.m365 === undefined ? {} : { m365: values.m365 }),
          ...(values['m365-tenants'] === undefined ? {} : { m365TenantIds: list(values['m365-tenants']) }),
        },
      };
    case 'org:list':
      return { method: 'GET', path: '/admin/organisations' };
    case 'org:self-signup': {
      const path = `/admin/organisations/${encodeURIComponent(required(values, 'org'))}/self-signup`;
      const chosen = [values.on, values.off, values.show].filter((v) => v === true).length;
      if (chosen !== 1) throw new UsageError('give exactly one of --on, --off, --show');
      if (values.show === true) return { method: 'GET', path };
      return { method: 'PUT', path, body: { enabled: values.on === true } };
    }
    case 'org:get':
      return { method: 'GET', path: `/admin/organisations/${encodeURIComponent(required(values, 'id'))}` };
    case 'user:create':
      return {
        method: 'POST',
        path: '/admin/users',
        body: {
          organisationId: required(values, 'org'),
          email: required(values, 'email'),
          firstName: required(values, 'first'),
          lastName: required(values, 'last'),
          role: required(values, 'role'),
          ...(values.password === undefined ? {} : { password: values.password }),
          ...(values['scope-groups'] === undefined ? {} : { scopeGroups: list(values['scope-groups']) }),
          ...(values['git-user'] === undefined ? {} : { isGitUser: values['git-user'] }),
        },
      };
    case 'user:list':
      return {
        method: 'GET',
        path: `/admin/users${values.org === undefined ? '' : `?organisationId=${encodeURIComponent(values.org)}`}`,
      };
    case 'user:get':
      return { method: 'GET', path: `/admin/users/${encodeURIComponent(required(values, 'id'))}` };
    case 'user:deactivate':
    case 'user:reactivate':
      return {
        method: 'POST',
        path: `/admin/users/${encodeURIComponent(required(values, 'id'))}/${command.slice('user:'.length)}`,
      };
    case 'invite:create':
      return {
        method: 'POST',
        path: '/admin/invitations',
        body: {
          organisationId: required(values, 'org'),
          email: required(values, 'email'),
          firstName: required(values, 'first'),
          lastName: required(values, 'last'),
          role: required(values, 'role'),
          ...(values['scope-groups'] === undefined ? {} : { scopeGroups: list(values['scope-groups']) }),
          ...(values['git-user'] === undefined ? {} : { isGitUser: values['git-user'] }),
        },
      };
    case 'invite:list':
      return { method: 'GET', path: `/admin/invitations${orgQuery(values)}` };
    case 'invite:resend':
    case 'invite:revoke':
      return {
        method: 'POST',
        path: `/admin/invitations/${encodeURIComponent(required(values, 'id'))}/${command.slice('invite:'.length)}`,
      };
    case 'keys:rotate':
      return { api: 'oauth2', method: 'POST', path: '/admin/keys/rotate' };
    case 'keys:revoke':
      return {
        api: 'oauth2',
        method: 'POST',
        path: '/admin/keys/revoke',
        body: { kid: required(values, 'kid') },
      };
    case 'terms:export': {
      const format = values.format ?? 'csv';
      if (format !== 'csv' && format !== 'json') throw new UsageError('--format must be csv or json');
      const query = new URLSearchParams({ format });
      if (values.org !== undefined) query.set('organisationId', values.org);
      return { method: 'GET', path: `/admin/terms/acceptances?${query.toString()}` };
    }
    case 'api-client:create':
      return {
        method: 'POST',
        path: '/admin/api-clients',
        body: {
          organisationId: required(values, 'org'),
          name: values.name ?? 'API client',
          scopeGroups: list(required(values, 'scope-groups')),
          ...(values.as === undefined ? {} : { actorEmail: values.as }),
        },
      };
    case 'api-client:list':
      return {
        method: 'GET',
        path: `/admin/api-clients?organisationId=${encodeURIComponent(required(values, 'org'))}`,
      };
    case 'api-client:revoke':
      return {
        method: 'POST',
        path: `/admin/api-clients/${encodeURIComponent(required(values, 'id'))}/revoke`,
        ...(values.as === undefined ? {} : { body: { actorEmail: values.as } }),
      };
    case 'account:unlock':
      return {
        method: 'POST',
        path: '/admin/lockouts/reset',
        body: { identifier: required(values, 'email') },
        api: 'identity',
      };
    case 'm365:admin-review':
      return { method: 'GET', path: '/admin/m365/org-admin-review' };
    case 'requests:list': {
      const limit = values.limit ?? '100';
      if (!/^\d{1,4}$/.test(limit)) throw new UsageError('--limit must be a number');
      return { api: 'agent', method: 'GET', path: `/admin/unregistered-user-requests?limit=${limit}` };
    }
    case 'sso:set': {
      for (const name of ['jit', 'enforce', 'allow-idp-initiated'] as const) {
        const value = values[name];
        if (value !== undefined && value !== 'on' && value !== 'off')
          throw new UsageError(`--${name} must be on or off`);
      }
      const path = `/admin/organisations/${encodeURIComponent(required(values, 'org'))}/sso`;
      const common = {
        ...(values.provider === undefined ? {} : { provider: values.provider }),
        ...(values.jit === undefined ? {} : { jit: values.jit === 'on' }),
        ...(values.enforce === undefined ? {} : { enforce: values.enforce === 'on' }),
      };
      if (values.protocol === 'saml')
        return { method: 'PUT', path, body: { ...common, ...samlBody(values) } };
      if (values.protocol !== undefined && values.protocol !== 'oidc')
        throw new UsageError('--protocol must be oidc or saml');
      const secret = values['client-secret'] ?? env.SSO_CLIENT_SECRET;
      if (!secret) throw new UsageError('--client-secret (or SSO_CLIENT_SECRET) is required');
      return {
        method: 'PUT',
        path,
        body: {
          issuer: required(values, 'issuer'),
          clientId: required(values, 'client-id'),
          clientSecret: secret,
          ...common,
          ...(values.scopes === undefined ? {} : { scopes: list(values.scopes) }),
          ...(values.userinfo === undefined ? {} : { userinfo: values.userinfo }),
        },
      };
    }
    case 'sso:break-glass': {
      const path = `/admin/organisations/${encodeURIComponent(required(values, 'org'))}/sso/break-glass`;
      if (values.clear === true && values.user === undefined) return { method: 'DELETE', path };
      if (values.clear === true) throw new UsageError('--user and --clear do not go together');
      return { method: 'PUT', path, body: { userId: required(values, 'user') } };
    }
    case 'sso:show':
    case 'sso:get':
    case 'sso:remove':
      return {
        method: command === 'sso:remove' ? 'DELETE' : 'GET',
        path: `/admin/organisations/${encodeURIComponent(required(values, 'org'))}/sso`,
      };
    case 'webhook:create':
      return {
        method: 'POST',
        path: `/admin/organisations/${encodeURIComponent(required(values, 'org'))}/webhooks`,
        body: {
          url: required(values, 'url'),
          ...(values.events === undefined ? {} : { eventTypes: list(values.events) }),
        },
      };
    case 'webhook:list':
      return {
        method: 'GET',
        path: `/admin/organisations/${encodeURIComponent(required(values, 'org'))}/webhooks`,
      };
    case 'webhook:delete':
    case 'webhook:rotate-secret': {
      const path = `/admin/organisations/${encodeURIComponent(required(values, 'org'))}/webhooks/${encodeURIComponent(required(values, 'id'))}`;
      return command === 'webhook:delete'
        ? { method: 'DELETE', path }
        : { method: 'POST', path: `${path}/rotate-secret` };
    }
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}

/**
 * Runs one admin command and returns the process exit code: 0 on success, 1 when the service
 * answers with an error or cannot be reached, 2 on a usage error.
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let call: Call;
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    const command = positionals[0];
    if (values.help || command === 'help') {
      io.out(USAGE);
      return 0;
    }
    if (command === undefined) throw new UsageError('a command is required');
    if (command === 'identities:import') {
      if (positionals.length !== 2) throw new UsageError('identities:import takes one file');
      return await runImport(positionals[1]!, io);
    }
    if (positionals.length > 1) throw new UsageError(`unexpected argument: ${positionals[1]}`);
    call = toCall(command, values, io.env);
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }

  const target = resolveTarget(call.api ?? 'users', io);
  if (typeof target === 'number') return target;
  const { base } = target;
  let response: Response;
  try {
    response = await fetch(`${base}${call.path}`, {
      method: call.method,
      headers: {
        ...target.headers,
        ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
    });
  } catch (error) {
    io.err(unreachable(base, error));
    return 1;
  }
  const text = await response.text();
  if (response.ok && text === '') {
    io.out(JSON.stringify({ ok: true }, null, 2));
    return 0;
  }
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: print as received
  }
  const printed =
    response.status === 204
      ? JSON.stringify({ status: 'removed' })
      : typeof body === 'string'
        ? body
        : JSON.stringify(body, null, 2);
  if (!response.ok) {
    io.err(printed);
    return 1;
  }
  io.out(printed);
  // Hydra's pagination (client:list): the next page's token is in the Link header.
  const next = /[?&]page_token=([^&>]+)[^>]*>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
  if (next) io.err(`next page: --page-token ${decodeURIComponent(next)}`);
  return 0;
}

/** The admin API's base URL and auth headers from the environment, or the exit code of a bad setting. */
function resolveTarget(
  api: keyof typeof ADMIN_APIS,
  io: CliIo,
): { base: string; headers: Record<string, string> } | number {
  const target = ADMIN_APIS[api];
  try {
    // The key may be a list being rotated (the first is sent) or come from a file (X_FILE).
    const env = settingsFromFiles(io.env, [target.urlVar, target.keyVar]);
    const parsed = adminKeySchema.safeParse(env[target.keyVar] || undefined);
    if (!parsed.success) throw new Error(`${target.keyVar}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    const key = callerKey(parsed.data);
    return {
      base: (env[target.urlVar] ?? target.defaultUrl).replace(/\/+$/, ''),
      headers: adminAuthHeaders(key || undefined),
    };
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
}

function unreachable(base: string, error: unknown): string {
  const reason = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
  return JSON.stringify({ errorCode: 'UNREACHABLE', message: `Cannot reach ${base}: ${reason}` }, null, 2);
}

/** `identities:import <file.jsonl>` against the identity service's admin API (cli-import.ts). */
async function runImport(file: string, io: CliIo): Promise<number> {
  const target = resolveTarget('identity', io);
  if (typeof target === 'number') return target;
  try {
    const summary = await importIdentities(
      file,
      async (body) => {
        const res = await fetch(`${target.base}/admin/identities`, {
          method: 'PATCH',
          headers: { ...target.headers, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const text = await res.text();
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // not JSON: reported as the batch's refusal
        }
        return { status: res.status, body: parsed };
      },
      (line) => io.err(line),
    );
    io.out(JSON.stringify(summary, null, 2));
    return summary.failed === 0 ? 0 : 1;
  } catch (error) {
    if (error instanceof TypeError && error.cause instanceof Error) io.err(unreachable(target.base, error));
    else io.err(error instanceof Error ? error.message : String(error));
    return 1;
  }
}
