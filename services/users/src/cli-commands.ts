import { parseArgs } from 'node:util';
import { adminAuthHeaders } from '@acme/service-kit/admin-access';

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
  user:create --org <organisationId> --email <email> --first <name> --last <name> --role <role>
              [--password <password>] [--scope-groups <a,b>] [--git-user]
  user:list [--org <organisationId>]
  user:get --id <userId>
  invite:create --org <organisationId> --email <email> --first <name> --last <name> --role <role>
                [--scope-groups <a,b>] [--git-user]
  invite:list [--org <organisationId>]
  invite:resend --id <invitationId>
  invite:revoke --id <invitationId>
  terms:export [--org <organisationId>] [--format csv|json]
  account:unlock --email <email>      ends the sign-in lockout of an address (password, codes, 2FA)
  requests:list [--limit <n>]         Microsoft 365 people who asked to join (agent service)

Talks to the user service admin API at USERS_ADMIN_URL (default http://localhost:4456), for
account:unlock to the identity admin API at IDENTITY_ADMIN_URL (default http://localhost:4434),
for requests:list to the agent service admin API at AGENT_ADMIN_URL (default http://localhost:4467),
and prints JSON. When the admin APIs require a key, set USERS_ADMIN_KEY, IDENTITY_ADMIN_KEY and
AGENT_ADMIN_KEY.`;

class UsageError extends Error {}

const options = {
  name: { type: 'string' },
  domains: { type: 'string' },
  products: { type: 'string' },
  subscription: { type: 'string' },
  'sso-provider': { type: 'string' },
  m365: { type: 'boolean' },
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
  limit: { type: 'string' },
  'm365-tenants': { type: 'string' },
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
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  /** Which admin API answers: the user service's (default), the identity service's or the agent service's. */
  api?: keyof typeof ADMIN_APIS;
}

const ADMIN_APIS = {
  users: { urlVar: 'USERS_ADMIN_URL', keyVar: 'USERS_ADMIN_KEY', defaultUrl: 'http://localhost:4456' },
  identity: {
    urlVar: 'IDENTITY_ADMIN_URL',
    keyVar: 'IDENTITY_ADMIN_KEY',
    defaultUrl: 'http://localhost:4434',
  },
  agent: { urlVar: 'AGENT_ADMIN_URL', keyVar: 'AGENT_ADMIN_KEY', defaultUrl: 'http://localhost:4467' },
} as const;

function toCall(command: string, values: Values): Call {
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
    case 'terms:export': {
      const format = values.format ?? 'csv';
      if (format !== 'csv' && format !== 'json') throw new UsageError('--format must be csv or json');
      const query = new URLSearchParams({ format });
      if (values.org !== undefined) query.set('organisationId', values.org);
      return { method: 'GET', path: `/admin/terms/acceptances?${query.toString()}` };
    }
    case 'account:unlock':
      return {
        method: 'POST',
        path: '/admin/lockouts/reset',
        body: { identifier: required(values, 'email') },
        api: 'identity',
      };
    case 'requests:list': {
      const limit = values.limit ?? '100';
      if (!/^\d{1,4}$/.test(limit)) throw new UsageError('--limit must be a number');
      return { api: 'agent', method: 'GET', path: `/admin/unregistered-user-requests?limit=${limit}` };
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
    if (positionals.length > 1) throw new UsageError(`unexpected argument: ${positionals[1]}`);
    call = toCall(command, values);
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }

  const target = ADMIN_APIS[call.api ?? 'users'];
  const base = (io.env[target.urlVar] ?? target.defaultUrl).replace(/\/+$/, '');
  const key = io.env[target.keyVar];
  let response: Response;
  try {
    response = await fetch(`${base}${call.path}`, {
      method: call.method,
      headers: {
        ...adminAuthHeaders(key || undefined),
        ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
    });
  } catch (error) {
    const reason =
      error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
    io.err(JSON.stringify({ errorCode: 'UNREACHABLE', message: `Cannot reach ${base}: ${reason}` }, null, 2));
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
  const printed = typeof body === 'string' ? body : JSON.stringify(body, null, 2);
  if (!response.ok) {
    io.err(printed);
    return 1;
  }
  io.out(printed);
  return 0;
}
