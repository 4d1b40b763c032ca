import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import formbody from '@fastify/formbody';
import { githubRoutes, type GitHubClient, type GitHubUser } from './github.ts';
import { sendPage } from './html.ts';
import { mailboxRoutes, MailStore, startSmtpCatcher } from './mailbox.ts';
import {
  startMicrosoftStandIns,
  type MicrosoftStandIns,
  type MicrosoftStandInsOptions,
} from './microsoft/index.ts';

export { loadConfig, type StandInsConfig } from './config.ts';
export { MailStore, type CaughtMessage } from './mailbox.ts';
export { extractCode, waitForMessage, type WaitForMessageOptions } from './mail-client.ts';
export {
  ORG_IDP_DEMO_PASSWORD,
  ORG_IDP_DEMO_USERS,
  orgIdpSubject,
  startOrgIdp,
  type OrgIdp,
  type OrgIdpClient,
  type OrgIdpFaults,
  type OrgIdpOptions,
  type OrgIdpUser,
} from './org-idp.ts';
export {
  SAML_IDP_DEMO_PASSWORD,
  SAML_IDP_DEMO_USERS,
  SAML_IDP_VARIANTS,
  startSamlIdp,
  wrapSignedResponse,
  type SamlIdp,
  type SamlIdpAnswer,
  type SamlIdpOptions,
  type SamlIdpUser,
  type SamlIdpVariant,
} from './saml-idp.ts';
export {
  SAML_IDP_CERT,
  SAML_IDP_KEY,
  SAML_IDP_NEXT_CERT,
  SAML_IDP_NEXT_KEY,
  SAML_IDP_WRONG_CERT,
} from './saml-idp-keys.ts';
export {
  DEFAULT_GITHUB_CLIENTS,
  DEMO_GITHUB_USER,
  type GitHubClient,
  type GitHubStandInOptions,
  type GitHubUser,
} from './github.ts';
export * from './microsoft/index.ts';
export { demoSamlIdpMetadata, demoSamlIdpUrls } from './saml-idp-demo.ts';
export { DEMO_APP_CLIENT_ID, startDemoApp } from './demo-app.ts';
export { startMicrosoftStandIns, type MicrosoftStandIns, type MicrosoftStandInsOptions };

export interface StandInsOptions {
  /** HTTP port (4500); 0 picks a free one. */
  httpPort?: number;
  /** SMTP catcher port (2525); 0 picks a free one. */
  smtpPort?: number;
  /** Browser-facing base URL; `http://localhost:<httpPort>` by default. */
  publicUrl?: string;
  /** Interface to bind (loopback). */
  host?: string;
  /** Messages kept by the mailbox (1000). */
  mailboxCapacity?: number;
  github?: { clients?: GitHubClient[]; users?: GitHubUser[]; codeTtlMs?: number; clock?: { now(): Date } };
  /** Entra, Graph and marketplace stand-ins, each on its own port (started only when given). */
  microsoft?: MicrosoftStandInsOptions;
}

export interface StandIns {
  urls: {
    /** Base URL of the HTTP server. */
    http: string;
    /** Mailbox page. */
    mailbox: string;
    /** `GET ?to=` / `DELETE` */
    mailApi: string;
    /** `smtp://127.0.0.1:<port>`, what services use as SMTP_URL. */
    smtp: string;
    /** Like https://github.com: `/login/oauth/authorize`, `/login/oauth/access_token` below it. */
    github: string;
    /** Like https://api.github.com: `/user` below it. */
    githubApi: string;
  };
  mailStore: MailStore;
  /** Present when `options.microsoft` was given. */
  microsoft?: MicrosoftStandIns;
  close(): Promise<void>;
}

/** Starts the third-party stand-ins: SMTP catcher, mailbox page and API, GitHub-like OAuth host. */
export async function startStandIns(options: StandInsOptions = {}): Promise<StandIns> {
  const host = options.host ?? '127.0.0.1';
  const mailStore = new MailStore(options.mailboxCapacity ?? 1000);
  const smtp = await startSmtpCatcher(mailStore, options.smtpPort ?? 2525, host);

  const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
  try {
    await app.register(formbody);
    await app.register(mailboxRoutes(mailStore), { prefix: '/mail' });
    await app.register(githubRoutes(options.github ?? {}), { prefix: '/github' });
    app.get('/health', async () => ({ status: 'ok' }));
    app.get('/', async (_req, reply) =>
      sendPage(
        reply,
        'Development stand-ins',
        `<header>Development stand-ins</header>
<main>
<h1>Development stand-ins</h1>
<ul>
<li><a href="/mail">Mailbox</a> (SMTP catcher on port ${smtp.port})</li>
<li>GitHub-like OAuth host: <code>/github/login/oauth/authorize</code>, <code>/github/login/oauth/access_token</code>, <code>/github/api/user</code></li>
</ul>
</main>`,
      ),
    );
    await app.listen({ port: options.httpPort ?? 4500, host });
  } catch (err) {
    await app.close().catch(() => {});
    await smtp.close();
    throw err;
  }
  let microsoft: MicrosoftStandIns | undefined;
  if (options.microsoft) {
    try {
      microsoft = await startMicrosoftStandIns({ host, ...options.microsoft });
    } catch (err) {
      await app.close().catch(() => {});
      await smtp.close();
      throw err;
    }
  }
  const httpPort = (app.server.address() as AddressInfo).port;
  const base = (options.publicUrl ?? `http://localhost:${httpPort}`).replace(/\/+$/, '');

  return {
    urls: {
      http: base,
      mailbox: `${base}/mail`,
      mailApi: `${base}/mail/api/messages`,
      smtp: `smtp://${host}:${smtp.port}`,
      github: `${base}/github`,
      githubApi: `${base}/github/api`,
    },
    mailStore,
    ...(microsoft ? { microsoft } : {}),
    async close() {
      mailStore.releaseWaiters();
      await Promise.all([app.close(), smtp.close(), microsoft?.close()]);
    },
  };
}
