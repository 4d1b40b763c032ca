import { parseArgs } from 'node:util';
import { z } from 'zod';
import type { PartSettings } from '@acme/service-kit/config';
import {
  ADMIN_APIS,
  options,
  resolveTarget,
  unreachable,
  UsageError,
  type AdminApi,
  type Call,
  type CliIo,
} from './cli-kit.ts';
import { COMMANDS } from './cli-table.ts';

const USAGE = `Usage: npm run admin -- <command> [options]

Commands:
${Object.values(COMMANDS)
  .filter((command) => command.help !== '')
  .map((command) => command.help.replace(/^/gm, '  '))
  .join('\n')}

Talks to the user service admin API at USERS_ADMIN_URL (default http://localhost:4456), for
account:unlock and identities:import to the identity admin API at IDENTITY_ADMIN_URL (default http://localhost:4434), for
client:* and keys:* to the authorization server's admin API at OAUTH2_ADMIN_URL (default
http://localhost:4445), for requests:list to the agent service admin API at AGENT_ADMIN_URL (default
http://localhost:4467), and prints JSON. When the admin APIs require a key, set USERS_ADMIN_KEY,
IDENTITY_ADMIN_KEY, OAUTH2_ADMIN_KEY and AGENT_ADMIN_KEY.`;

const API_NAMES: Record<AdminApi, string> = {
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
        (Object.keys(ADMIN_APIS) as AdminApi[]).flatMap((api) => [
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

/**
 * Runs one admin command and returns the process exit code: 0 on success, 1 when the service
 * answers with an error or cannot be reached, 2 on a usage error.
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let call: Call;
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    const [name, ...args] = positionals;
    if (values.help || name === 'help') {
      io.out(USAGE);
      return 0;
    }
    if (name === undefined) throw new UsageError('a command is required');
    const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (command === undefined) throw new UsageError(`unknown command: ${name}`);
    if (command.run) return await command.run(args, io);
    if (args.length > 0) throw new UsageError(`unexpected argument: ${args[0]}`);
    call = command.parse!(values, io.env);
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  return send(call, io);
}

/** Sends one call to its admin API and prints the answer (stdout) or the refusal (stderr). */
async function send(call: Call, io: CliIo): Promise<number> {
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
