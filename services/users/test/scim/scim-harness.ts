import { startConsoleStack, type ConsoleStack } from '../console/console-harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

export interface ScimAnswer {
  status: number;
  headers: Headers;
  body: any;
}

/** A SCIM client: raw HTTP to `/scim/v2` with a bearer token, as a directory sends it. */
export type ScimCall = (
  method: string,
  path: string,
  body?: unknown,
  options?: { token?: string | null; contentType?: string; raw?: string },
) => Promise<ScimAnswer>;

export interface ScimStack extends ConsoleStack {
  organisationId: string;
  domain: string;
  adminToken: string;
  /** A live SCIM token of `organisationId`. */
  scimToken: string;
  scimTokenId: string;
  scim: ScimCall;
  newScimToken(
    organisationId: string,
    adminToken: string,
    name?: string,
  ): Promise<{ id: string; token: string }>;
}

/**
 * The console stack (real identity service and authorization server) with an organisation, its
 * org-admin and a SCIM token made through the console API.
 */
export async function startScimStack(
  domain: string,
  options: { env?: Record<string, string> } = {},
): Promise<ScimStack> {
  const stack = await startConsoleStack(options);
  const organisationId = await stack.newOrganisation(domain);
  const admin = await stack.newUser(organisationId, domain, 'org-admin');
  const adminToken = await stack.tokenFor(admin.identityId);
  const newScimToken = async (orgId: string, token: string, name = 'Directory') => {
    const res = await stack.call(token, 'POST', `/console/organisations/${orgId}/scim/tokens`, { name });
    if (res.status !== 201) throw new Error(`scim token: ${res.status} ${JSON.stringify(res.body)}`);
    return { id: res.body.id as string, token: res.body.token as string };
  };
  const created = await newScimToken(organisationId, adminToken);
  const scim: ScimCall = async (method, path, body, opts = {}) => {
    const token = opts.token === undefined ? created.token : opts.token;
    const headers: Record<string, string> = { accept: 'application/scim+json' };
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let payload: string | undefined;
    if (opts.raw !== undefined || body !== undefined) {
      headers['content-type'] = opts.contentType ?? 'application/scim+json';
      payload = opts.raw ?? JSON.stringify(body);
    }
    const res = await fetch(`${stack.svc.publicUrl}/scim/v2${path}`, {
      method,
      headers,
      ...(payload === undefined ? {} : { body: payload }),
    });
    const text = await res.text();
    let parsed: any = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON: the test asserts on the text
    }
    return { status: res.status, headers: res.headers, body: parsed };
  };
  return {
    ...stack,
    organisationId,
    domain,
    adminToken,
    scimToken: created.token,
    scimTokenId: created.id,
    scim,
    newScimToken,
  };
}
