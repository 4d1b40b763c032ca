import { readFileSync } from 'node:fs';
import { runImport } from './cli-import.ts';
import { list, pathPart, required, UsageError, type Call, type CliIo, type Values } from './cli-kit.ts';

/**
 * One admin command: its lines in the usage text, and either `parse` (the options → one admin API
 * call, which the runner sends and prints) or `run` (a command that does its own work).
 */
export interface CliCommand {
  help: string;
  parse?(values: Values, env: CliIo['env']): Call;
  run?(args: string[], io: CliIo): Promise<number>;
}

const given = <T>(value: T | undefined, wrap: (value: T) => object): object =>
  value === undefined ? {} : wrap(value);
const orgPath = (values: Values) => `/admin/organisations/${pathPart(values, 'org')}`;
const clientPath = (values: Values) => `/admin/clients/${pathPart(values, 'id')}`;
const webhookPath = (values: Values) => `${orgPath(values)}/webhooks/${pathPart(values, 'id')}`;
const orgQuery = (values: Values): string =>
  values.org === undefined ? '' : `?organisationId=${encodeURIComponent(values.org)}`;
const get = (path: string, api?: Call['api']): Call => ({
  method: 'GET',
  path,
  ...given(api, (a) => ({ api: a })),
});

/** The person fields shared by `user:create` and `invite:create`. */
const person = (values: Values) => ({
  organisationId: required(values, 'org'),
  email: required(values, 'email'),
  firstName: required(values, 'first'),
  lastName: required(values, 'last'),
  role: required(values, 'role'),
});
const memberExtras = (values: Values) => ({
  ...given(values['scope-groups'], (v) => ({ scopeGroups: list(v) })),
  ...given(values['git-user'], (v) => ({ isGitUser: v })),
});

function onOff(values: Values, ...names: ('jit' | 'enforce' | 'allow-idp-initiated')[]): void {
  for (const name of names) {
    const value = values[name];
    if (value !== undefined && value !== 'on' && value !== 'off')
      throw new UsageError(`--${name} must be on or off`);
  }
}

const SAML_ATTRIBUTE_OPTIONS = {
  email: 'attr-email',
  firstName: 'attr-first-name',
  lastName: 'attr-last-name',
  groups: 'attr-groups',
} as const;

function readText(file: string, option: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${option}: ${(error as Error).message}`);
  }
}

/** `sso:set --protocol saml`: the metadata (URL, or a file read here and sent as XML) and settings. */
function samlBody(values: Values): Record<string, unknown> {
  for (const name of ['issuer', 'client-id', 'client-secret', 'scopes', 'userinfo'] as const) {
    if (values[name] !== undefined) throw new UsageError(`--${name} is for OIDC providers, not SAML`);
  }
  const url = values['metadata-url'];
  const file = values['metadata-file'];
  if ((url === undefined) === (file === undefined))
    throw new UsageError('give exactly one of --metadata-url and --metadata-file');
  const metadata =
    url !== undefined ? { metadataUrl: url } : { metadataXml: readText(file!, '--metadata-file') };
  const attributes = Object.fromEntries(
    Object.entries(SAML_ATTRIBUTE_OPTIONS)
      .filter(([, option]) => values[option] !== undefined)
      .map(([attribute, option]) => [attribute, values[option]]),
  );
  return {
    protocol: 'saml',
    ...metadata,
    ...(Object.keys(attributes).length > 0 ? { attributes } : {}),
    ...given(values['allow-idp-initiated'], (v) => ({ allowIdpInitiated: v === 'on' })),
  };
}

/** `sso:set` for an OIDC provider: the client secret from the option or SSO_CLIENT_SECRET. */
function oidcBody(values: Values, env: CliIo['env']): Record<string, unknown> {
  if (values.protocol !== undefined && values.protocol !== 'oidc')
    throw new UsageError('--protocol must be oidc or saml');
  const secret = values['client-secret'] ?? env.SSO_CLIENT_SECRET;
  if (!secret) throw new UsageError('--client-secret (or SSO_CLIENT_SECRET) is required');
  return {
    issuer: required(values, 'issuer'),
    clientId: required(values, 'client-id'),
    clientSecret: secret,
    ...given(values.scopes, (v) => ({ scopes: list(v) })),
    ...given(values.userinfo, (v) => ({ userinfo: v })),
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

function clientListQuery(values: Values): string {
  const query = new URLSearchParams();
  const names = {
    owner: 'owner',
    name: 'client_name',
    'page-size': 'page_size',
    'page-token': 'page_token',
  } as const;
  for (const [option, param] of Object.entries(names)) {
    const value = values[option as keyof typeof names];
    if (value !== undefined) query.set(param, value);
  }
  const q = query.toString();
  return q ? `?${q}` : '';
}

const ssoShow: CliCommand = {
  help: `sso:show --org <organisationId>     (also sso:get) protocol, issuer or IdP entity id,
        certificate fingerprints and expiry; never a secret`,
  parse: (values) => get(`${orgPath(values)}/sso`),
};

/** Every admin command, in the order the usage text lists them. */
export const COMMANDS: Record<string, CliCommand> = {
  'org:create': {
    help: `org:create --name <name> --domains <a.com,b.com> --products <Platform,MAGIC>
           [--subscription subscribed|not_subscribed] [--sso-provider <id>] [--m365]
           [--m365-tenants <tenantId,…>]`,
    parse: (values) => ({
      method: 'POST',
      path: '/admin/organisations',
      body: {
        name: required(values, 'name'),
        domains: list(required(values, 'domains')),
        products: list(values.products) ?? [],
        ...given(values.subscription, (v) => ({ subscriptionStatus: v })),
        ...given(values['sso-provider'], (v) => ({ sso: { provider: v } })),
        ...given(values.m365, (v) => ({ m365: v })),
        ...given(values['m365-tenants'], (v) => ({ m365TenantIds: list(v) })),
      },
    }),
  },
  'org:list': { help: 'org:list', parse: () => get('/admin/organisations') },
  'org:get': {
    help: 'org:get --id <organisationId>',
    parse: (values) => get(`/admin/organisations/${pathPart(values, 'id')}`),
  },
  'org:self-signup': {
    help: `org:self-signup --org <organisationId> (--on | --off | --show)
        self sign-up for the organisation's domains (refused where it enforces SSO)`,
    parse: (values) => {
      const path = `${orgPath(values)}/self-signup`;
      if ([values.on, values.off, values.show].filter((v) => v === true).length !== 1)
        throw new UsageError('give exactly one of --on, --off, --show');
      return values.show === true
        ? get(path)
        : { method: 'PUT', path, body: { enabled: values.on === true } };
    },
  },
  'user:create': {
    help: `user:create --org <organisationId> --email <email> --first <name> --last <name> --role <role>
            [--password <password>] [--scope-groups <a,b>] [--git-user]`,
    parse: (values) => ({
      method: 'POST',
      path: '/admin/users',
      body: {
        ...person(values),
        ...given(values.password, (v) => ({ password: v })),
        ...memberExtras(values),
      },
    }),
  },
  'user:list': {
    help: 'user:list [--org <organisationId>]',
    parse: (values) => get(`/admin/users${orgQuery(values)}`),
  },
  'user:get': {
    help: 'user:get --id <userId>',
    parse: (values) => get(`/admin/users/${pathPart(values, 'id')}`),
  },
  'user:deactivate': {
    help: `user:deactivate --id <userId>       deprovisions at once: sessions, grants and the access tokens
                                    already issued, and the API clients the person created end
                                    (the organisation's last org-admin who can sign in is kept)`,
    parse: (values) => ({ method: 'POST', path: `/admin/users/${pathPart(values, 'id')}/deactivate` }),
  },
  'user:reactivate': {
    help: 'user:reactivate --id <userId>',
    parse: (values) => ({ method: 'POST', path: `/admin/users/${pathPart(values, 'id')}/reactivate` }),
  },
  'invite:create': {
    help: `invite:create --org <organisationId> --email <email> --first <name> --last <name> --role <role>
              [--scope-groups <a,b>] [--git-user]`,
    parse: (values) => ({
      method: 'POST',
      path: '/admin/invitations',
      body: { ...person(values), ...memberExtras(values) },
    }),
  },
  'invite:list': {
    help: 'invite:list [--org <organisationId>]',
    parse: (values) => get(`/admin/invitations${orgQuery(values)}`),
  },
  'invite:resend': {
    help: 'invite:resend --id <invitationId>',
    parse: (values) => ({ method: 'POST', path: `/admin/invitations/${pathPart(values, 'id')}/resend` }),
  },
  'invite:revoke': {
    help: 'invite:revoke --id <invitationId>',
    parse: (values) => ({ method: 'POST', path: `/admin/invitations/${pathPart(values, 'id')}/revoke` }),
  },
  'terms:export': {
    help: 'terms:export [--org <organisationId>] [--format csv|json]',
    parse: (values) => {
      const format = values.format ?? 'csv';
      if (format !== 'csv' && format !== 'json') throw new UsageError('--format must be csv or json');
      const query = new URLSearchParams({ format });
      if (values.org !== undefined) query.set('organisationId', values.org);
      return get(`/admin/terms/acceptances?${query.toString()}`);
    },
  },
  'api-client:create': {
    help: `api-client:create --org <organisationId> --scope-groups <a,b> [--name <name>] [--as <admin email>]
                  (prints the client id and its secret: the only time the secret is shown)`,
    parse: (values) => ({
      method: 'POST',
      path: '/admin/api-clients',
      body: {
        organisationId: required(values, 'org'),
        name: values.name ?? 'API client',
        scopeGroups: list(required(values, 'scope-groups')),
        ...given(values.as, (v) => ({ actorEmail: v })),
      },
    }),
  },
  'api-client:list': {
    help: 'api-client:list --org <organisationId>',
    parse: (values) => get(`/admin/api-clients?organisationId=${pathPart(values, 'org')}`),
  },
  'api-client:revoke': {
    help: 'api-client:revoke --id <clientId> [--as <admin email>]',
    parse: (values) => ({
      method: 'POST',
      path: `/admin/api-clients/${pathPart(values, 'id')}/revoke`,
      ...given(values.as, (v) => ({ body: { actorEmail: v } })),
    }),
  },
  'account:unlock': {
    help: 'account:unlock --email <email>      ends the sign-in lockout of an address (password, codes, 2FA)',
    parse: (values) => ({
      api: 'identity',
      method: 'POST',
      path: '/admin/lockouts/reset',
      body: { identifier: required(values, 'email') },
    }),
  },
  'identities:import': {
    help: `identities:import <file.jsonl>      one identity a line (Kratos's identity body, password hashes in
                                    argon2id, bcrypt, PBKDF2 or scrypt); safe to run again: an
                                    address with an account already is skipped; progress on stderr`,
    run: (args, io) => {
      if (args.length !== 1) throw new UsageError('identities:import takes one file');
      return runImport(args[0]!, io);
    },
  },
  'client:create': {
    help: `client:create [--file <client.json>] [--name <name>] [--grant-types <a,b>] [--redirect-uris <a,b>]
              [--post-logout-redirect-uris <a,b>] [--auth-method <method>] [--scopes <a,b>]
              [--owner <owner>] [--skip-consent]
              an OAuth 2.0 client (Hydra's client document; flags win over the file); prints
              it with its secret: the only time the secret is shown`,
    parse: (values) => ({
      api: 'oauth2',
      method: 'POST',
      path: '/admin/clients',
      body: clientDocument(values),
    }),
  },
  'client:list': {
    help: 'client:list [--owner <owner>] [--name <name>] [--page-size <n>] [--page-token <token>]',
    parse: (values) => get(`/admin/clients${clientListQuery(values)}`, 'oauth2'),
  },
  'client:show': {
    help: 'client:show --id <clientId>',
    parse: (values) => get(clientPath(values), 'oauth2'),
  },
  'client:update': {
    help: `client:update --id <clientId> --file <file.json>   a JSON Patch (RFC 6902) array, or a whole
              client document that replaces the client`,
    parse: (values) => {
      const body = readJsonFile(required(values, 'file'));
      return { api: 'oauth2', method: Array.isArray(body) ? 'PATCH' : 'PUT', path: clientPath(values), body };
    },
  },
  'client:delete': {
    help: "client:delete --id <clientId>       the client's grants and tokens end at once",
    parse: (values) => ({ api: 'oauth2', method: 'DELETE', path: clientPath(values) }),
  },
  'client:rotate-secret': {
    help: `client:rotate-secret --id <clientId>  prints the new secret; the old one is accepted for
                                    OAUTH2_CLIENT_SECRET_GRACE_SECONDS`,
    parse: (values) => ({ api: 'oauth2', method: 'POST', path: `${clientPath(values)}/secrets/rotate` }),
  },
  'keys:rotate': {
    help: 'keys:rotate   a new token-signing key; the old one stays published until its tokens expire',
    parse: () => ({ api: 'oauth2', method: 'POST', path: '/admin/keys/rotate' }),
  },
  'keys:revoke': {
    help: `keys:revoke --kid <kid>             emergency: the key leaves the JWKS now and every token it
                                    signed is refused (the current key: keys:rotate first)`,
    parse: (values) => ({
      api: 'oauth2',
      method: 'POST',
      path: '/admin/keys/revoke',
      body: { kid: required(values, 'kid') },
    }),
  },
  'requests:list': {
    help: 'requests:list [--limit <n>]         Microsoft 365 people who asked to join (agent service)',
    parse: (values) => {
      const limit = values.limit ?? '100';
      if (!/^\d{1,4}$/.test(limit)) throw new UsageError('--limit must be a number');
      return get(`/admin/unregistered-user-requests?limit=${limit}`, 'agent');
    },
  },
  'm365:admin-review': {
    help: `m365:admin-review                   org-admins that marketplace activation gave to non-purchasers
                                    (found by the issue-20 repair migration; nothing is demoted)`,
    parse: () => get('/admin/m365/org-admin-review'),
  },
  'sso:set': {
    help: `sso:set --org <organisationId> --issuer <url> --client-id <id> [--client-secret <secret>]
        [--provider <id>] [--scopes openid,email,profile] [--jit on|off] [--userinfo]
        [--enforce on|off]  (on: no password sign-in or recovery for the organisation's domains)
        (without --client-secret the secret is read from SSO_CLIENT_SECRET, keeping it out of
        shell history and process lists)
sso:set --org <organisationId> --protocol saml (--metadata-url <url> | --metadata-file <path>)
        [--provider <id>] [--jit on|off] [--enforce on|off] [--allow-idp-initiated on|off]
        [--attr-email <name>|nameid] [--attr-first-name <name>] [--attr-last-name <name>]
        [--attr-groups <name>]  SAML 2.0: the IdP's metadata (a URL is fetched again daily);
        attributes are the SAML Attribute Names the IdP sends (defaults email, firstName,
        lastName, groups; --attr-email nameid takes the address from the NameID)`,
    parse: (values, env) => {
      onOff(values, 'jit', 'enforce', 'allow-idp-initiated');
      const path = `${orgPath(values)}/sso`;
      const common = {
        ...given(values.provider, (v) => ({ provider: v })),
        ...given(values.jit, (v) => ({ jit: v === 'on' })),
        ...given(values.enforce, (v) => ({ enforce: v === 'on' })),
      };
      const method = values.protocol === 'saml' ? samlBody(values) : oidcBody(values, env);
      return { method: 'PUT', path, body: { ...common, ...method } };
    },
  },
  'sso:show': ssoShow,
  'sso:get': { ...ssoShow, help: '' },
  'sso:remove': {
    help: 'sso:remove --org <organisationId>',
    parse: (values) => ({ method: 'DELETE', path: `${orgPath(values)}/sso` }),
  },
  'sso:break-glass': {
    help: `sso:break-glass --org <organisationId> (--user <userId> | --clear)
        the one org-admin exempt from --enforce (for when the organisation's provider is down)`,
    parse: (values) => {
      const path = `${orgPath(values)}/sso/break-glass`;
      if (values.clear === true && values.user === undefined) return { method: 'DELETE', path };
      if (values.clear === true) throw new UsageError('--user and --clear do not go together');
      return { method: 'PUT', path, body: { userId: required(values, 'user') } };
    },
  },
  'webhook:create': {
    help: `webhook:create --org <organisationId> --url <url> [--events <type,type>]
        a signed webhook endpoint (every event type when --events is left out); prints its id
        and its whsec_ signing secret: the only time the secret is shown`,
    parse: (values) => ({
      method: 'POST',
      path: `${orgPath(values)}/webhooks`,
      body: { url: required(values, 'url'), ...given(values.events, (v) => ({ eventTypes: list(v) })) },
    }),
  },
  'webhook:list': {
    help: 'webhook:list --org <organisationId>',
    parse: (values) => get(`${orgPath(values)}/webhooks`),
  },
  'webhook:delete': {
    help: 'webhook:delete --org <organisationId> --id <endpointId>',
    parse: (values) => ({ method: 'DELETE', path: webhookPath(values) }),
  },
  'webhook:rotate-secret': {
    help: `webhook:rotate-secret --org <organisationId> --id <endpointId>
        prints the new secret; the old one signs beside it for 24 hours`,
    parse: (values) => ({ method: 'POST', path: `${webhookPath(values)}/rotate-secret` }),
  },
};
