import { z } from 'zod';
import type { GitHubClient } from './github.ts';

const port = z.coerce.number().int().min(0).max(65_535);

/**
 * `GITHUB_CLIENTS`: comma-separated `id:secret` pairs, optionally `id:secret@redirectUri`
 * (default `dev-client:dev-secret`).
 */
function parseClients(value: string): GitHubClient[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const at = entry.indexOf('@');
      const creds = at < 0 ? entry : entry.slice(0, at);
      const redirect = at < 0 ? undefined : entry.slice(at + 1);
      const colon = creds.indexOf(':');
      if (colon <= 0 || colon === creds.length - 1)
        throw new Error('GITHUB_CLIENTS entries are id:secret[@redirectUri]');
      return {
        clientId: creds.slice(0, colon),
        clientSecret: creds.slice(colon + 1),
        ...(redirect ? { redirectUris: [new URL(redirect).toString()] } : {}),
      };
    });
}

const schema = z.object({
  STANDINS_HTTP_PORT: port.default(4500),
  STANDINS_SMTP_PORT: port.default(2525),
  STANDINS_PUBLIC_URL: z.url().optional(),
  GITHUB_CLIENTS: z
    .string()
    .default('dev-client:dev-secret')
    .transform((v, ctx) => {
      try {
        return parseClients(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
});

export interface StandInsConfig {
  httpPort: number;
  smtpPort: number;
  publicUrl?: string;
  githubClients: GitHubClient[];
}

export function loadConfig(env: Record<string, string | undefined> = process.env): StandInsConfig {
  const clean = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.parse(clean);
  return {
    httpPort: parsed.STANDINS_HTTP_PORT,
    smtpPort: parsed.STANDINS_SMTP_PORT,
    ...(parsed.STANDINS_PUBLIC_URL ? { publicUrl: parsed.STANDINS_PUBLIC_URL.replace(/\/+$/, '') } : {}),
    githubClients: parsed.GITHUB_CLIENTS,
  };
}
