import * as z from 'zod/mini';
import type { Application, AuthMode } from './applications.ts';
import {
  allowsM365ByDefault,
  APPLICATION_DEFAULTS,
  APPLICATIONS,
  AUTH_MODES,
  defaultUrlMap,
} from './applications.ts';
import { systemShape } from '@acme/system-shape';

/** Where the development system's listeners are (`npm start`'s shape, no offset). */
const DEV = systemShape().listeners;

// Runtime configuration: one build serves every application; /account/runtime-config.js sets
// window.__ACCOUNT_CONFIG__ before the bundle runs. Parsed once here; nothing else reads it.

export type { Application, AuthMode } from './applications.ts';
const applicationSchema = z.enum(APPLICATIONS);
const authModeSchema = z.enum(AUTH_MODES);

const httpUrl = z.string().check(z.regex(/^https?:\/\/[^\s/]+(\/\S*)?$/, 'must be an http(s) URL'));

/** A landing page's name: its path is `/<name>` (never `account` or `welcome`, which are taken). */
const pageName = z.string().check(
  z.regex(/^[a-z][a-z0-9-]{0,39}$/, 'must be a lower-case page name'),
  z.refine((v) => v !== 'account' && v !== 'welcome', 'is reserved'),
);
const names = z.array(z.string().check(z.minLength(1)));

/**
 * The initial page after sign-in: the first rule whose products and scope groups (each list: at
 * least one must be in the token; an absent list always matches) match the token, else `default`.
 */
const initialPageTableSchema = z.object({
  default: pageName,
  rules: z.array(z.object({ products: z.optional(names), scopeGroups: z.optional(names), page: pageName })),
});
export type InitialPageTable = z.infer<typeof initialPageTableSchema>;
/**
 * Microsoft 365 sign-in (MAGIC only). `entraUrl` points MSAL at a local Entra stand-in (development
 * and tests); production leaves it out and MSAL talks to the real authority.
 */
const m365ConfigSchema = z.object({
  /** The app registration's client id in Entra (also the Teams app's web-app id). */
  clientId: z.string().check(z.minLength(1)),
  authority: z.string().check(z.regex(/^https:\/\/[^\s/]+\/[^\s/]+$/, 'must be https://host/tenant')),
  entraUrl: z.optional(httpUrl),
  /** The offer's subscription set-up link, shown to cloud admins on subscription-required. */
  subscriptionUrl: httpUrl,
  /** Origins allowed to frame MAGIC besides Teams and Office (the development Teams host page). */
  extraFrameAncestors: z.array(httpUrl),
});
export type M365Config = z.infer<typeof m365ConfigSchema>;

export const accountConfigSchema = z.object({
  application: applicationSchema,
  appName: z.string().check(z.minLength(1)),
  clientId: z.string().check(z.minLength(1)),
  identityUrl: httpUrl,
  oauth2Url: httpUrl,
  usersUrl: httpUrl,
  agentUrl: httpUrl,
  cookieDomain: z.optional(z.string()),
  initialPage: initialPageTableSchema,
  supportEmail: z.string().check(z.minLength(3)),
  accessEmail: z.string().check(z.minLength(3)),
  urlMap: z.record(applicationSchema, httpUrl),
  disableGitStep: z.boolean(),
  allowedAuthModes: z.optional(z.array(authModeSchema)),
  /** Products the application's pages require (at least one); empty: no product check. */
  requiredProducts: z.optional(names),
  /** Scope groups the application's pages require (at least one); empty: no scope check. */
  requiredScopeGroups: z.optional(names),
  /** Where an organisation's admin subscribes (the offer's page), shown on the welcome page. */
  offerUrl: httpUrl,
  m365: z.optional(m365ConfigSchema),
  /** The services trace requests: the app's calls carry `traceparent` (shared/tracing). */
  tracing: z.optional(z.boolean()),
});
export type AccountConfig = z.infer<typeof accountConfigSchema>;

declare global {
  interface Window {
    __ACCOUNT_CONFIG__?: unknown;
  }
}

export function parseConfig(raw: unknown): AccountConfig {
  const result = accountConfigSchema.safeParse(raw);
  if (!result.success) {
    const issues = result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new Error(`Invalid account app configuration: ${issues}`);
  }
  return Object.freeze(result.data);
}

let current: AccountConfig | null = null;

/** The configuration of this page; parsed from window.__ACCOUNT_CONFIG__ on first use. */
export function getConfig(): AccountConfig {
  current ??= parseConfig(window.__ACCOUNT_CONFIG__);
  return current;
}

/** Tests and the server inject a configuration directly. */
export function setConfig(config: AccountConfig): void {
  current = config;
}

/** The configured list, else local and MAGIC allow ory and m365 and every other application ory only. */
export function allowedAuthModes(
  config: Pick<AccountConfig, 'allowedAuthModes' | 'application'>,
): AuthMode[] {
  if (config.allowedAuthModes && config.allowedAuthModes.length > 0) return config.allowedAuthModes;
  return [...APPLICATION_DEFAULTS[config.application].authModes];
}

/** Microsoft 365 sign-in is possible here: the application allows m365 and has its set-up. */
export function m365SignInAvailable(
  config: Pick<AccountConfig, 'm365' | 'allowedAuthModes' | 'application'>,
): boolean {
  return config.m365 !== undefined && allowedAuthModes(config).includes('m365');
}

/** The configured products the application's pages require, else the application's default. */
export function requiredProducts(config: AccountConfig): string[] {
  return config.requiredProducts ?? [...APPLICATION_DEFAULTS[config.application].requiredProducts];
}

/** Development defaults (ARCHITECTURE "Default ports"). */
export function defaultConfig(application: Application): AccountConfig {
  return {
    application,
    appName: APPLICATION_DEFAULTS[application].name,
    clientId: application,
    identityUrl: DEV.identityPublic,
    oauth2Url: DEV.oauth2Public,
    usersUrl: DEV.usersPublic,
    agentUrl: DEV.agent,
    initialPage: { default: 'research', rules: [] },
    supportEmail: 'support@acme.test',
    accessEmail: 'access@acme.test',
    urlMap: defaultUrlMap(),
    disableGitStep: false,
    offerUrl: `${DEV.marketplace}/`,
    ...(allowsM365ByDefault(application) ? { m365: defaultM365Config() } : {}),
  };
}

/** MAGIC's and local's Microsoft 365 sign-in in development: the demo app registration on the Entra stand-in. */
export function defaultM365Config(): M365Config {
  return {
    clientId: '6f2d4c1a-8b3e-4f5d-9a7c-1e2b3c4d5e6f',
    authority: 'https://login.microsoftonline.com/organizations',
    entraUrl: DEV.entra,
    subscriptionUrl: `${DEV.marketplace}/`,
    extraFrameAncestors: [],
  };
}
