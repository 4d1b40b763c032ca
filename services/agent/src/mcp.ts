import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { adminAuthHeaders } from '@acme/service-kit/admin-access';
import type { Clock } from '@acme/db/clock';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Config } from './config.ts';
import { AppError } from './http/errors.ts';
import { openApi } from '@acme/service-kit/openapi';

/** RFC 9728's protected resource metadata, as served here. */
const resourceMetadataSchema = z.object({
  resource: z.string(),
  authorization_servers: z.array(z.string()),
  bearer_methods_supported: z.array(z.string()),
  scopes_supported: z.array(z.string()),
  resource_name: z.string(),
});

/** A JSON-RPC 2.0 message (or batch) of the Model Context Protocol; the SDK's transport reads it. */
const jsonRpcSchema = z.union([
  z.looseObject({ jsonrpc: z.literal('2.0') }),
  z.array(z.looseObject({ jsonrpc: z.literal('2.0') })),
]);

/**
 * The MCP endpoint (Streamable HTTP, stateless): an assistant connects with an access token the
 * authorization server issued for this endpoint (RFC 8707: the token's audience is the endpoint's
 * URL). Without one it is answered 401 with `WWW-Authenticate: Bearer resource_metadata=…`, which
 * points at this endpoint's protected resource metadata (RFC 9728) and so at the authorization
 * server, where the assistant registers itself and a person signs in and consents.
 */

const MCP_PATH = '/mcp';
const METADATA_PATH = '/.well-known/oauth-protected-resource';

const introspectionSchema = z.object({
  active: z.boolean(),
  sub: z.string().optional(),
  exp: z.number().optional(),
  aud: z.array(z.string()).optional(),
  client_id: z.string().optional(),
  token_use: z.string().optional(),
  ext: z.record(z.string(), z.unknown()).optional(),
});

const extSchema = z
  .object({
    user: z.object({ email: z.string().optional(), name: z.string().optional() }).partial().optional(),
    role: z.string().optional(),
    organisation: z.object({ id: z.string(), name: z.string() }).partial().optional(),
    products: z.array(z.string()).optional(),
    subscriptionStatus: z.string().optional(),
  })
  .partial();

/** Who called, as their token says. */
interface McpCaller {
  subject: string;
  clientId: string;
  email: string | undefined;
  name: string | undefined;
  role: string | undefined;
  organisationId: string | undefined;
  organisationName: string | undefined;
  products: string[];
  subscriptionStatus: string | undefined;
}

const BEARER = /^Bearer\s+([A-Za-z0-9._~+/=-]{1,8192})$/;

export function registerMcp(app: FastifyInstance, config: Config, clock: Clock): void {
  const { resource, issuer } = config.mcp;
  const metadataUrl = `${new URL(resource).origin}${METADATA_PATH}${new URL(resource).pathname}`;
  const challenge = (error?: string) =>
    `Bearer resource_metadata="${metadataUrl}"${error ? `, error="${error}"` : ''}`;

  const metadata: z.infer<typeof resourceMetadataSchema> = {
    resource,
    authorization_servers: [issuer],
    bearer_methods_supported: ['header'],
    scopes_supported: ['openid', 'offline_access'],
    resource_name: 'Platform assistant tools',
  };
  for (const path of [`${METADATA_PATH}${MCP_PATH}`, METADATA_PATH]) {
    app.get(path, openApi({ responses: { 200: resourceMetadataSchema } }), async (_request, reply) => {
      reply.header('cache-control', 'max-age=300');
      return metadata;
    });
  }

  /** The caller of an MCP request: an active access token whose audience is this endpoint. */
  async function caller(request: FastifyRequest): Promise<McpCaller> {
    const token = BEARER.exec(request.headers.authorization ?? '')?.[1];
    if (token === undefined) {
      throw new AppError('UNAUTHENTICATED', 'An access token for this MCP server is required.', {
        'WWW-Authenticate': challenge(),
      });
    }
    let response: Response;
    try {
      response = await fetch(`${config.mcp.oauth2AdminUrl}/admin/oauth2/introspect`, {
        method: 'POST',
        headers: {
          accept: 'application/json',
          'content-type': 'application/x-www-form-urlencoded',
          ...adminAuthHeaders(config.mcp.oauth2AdminKey),
        },
        body: new URLSearchParams({ token }).toString(),
        signal: AbortSignal.timeout(config.upstreamTimeoutMs),
      });
    } catch {
      throw new AppError('UPSTREAM_ERROR', 'The authorization server is unreachable.');
    }
    const parsed = introspectionSchema.safeParse(await response.json().catch(() => undefined));
    if (response.status !== 200 || !parsed.success) {
      throw new AppError('UPSTREAM_ERROR', 'The authorization server could not check the access token.');
    }
    const t = parsed.data;
    const now = Math.floor(clock.now().getTime() / 1000);
    // A token for the platform's other APIs (or any other resource) is no token here: each
    // resource accepts only tokens issued for it.
    if (
      !t.active ||
      t.sub === undefined ||
      t.token_use === 'refresh_token' ||
      (t.exp !== undefined && t.exp <= now) ||
      !(t.aud ?? []).includes(resource)
    ) {
      throw new AppError('UNAUTHENTICATED', 'The access token is not valid for this MCP server.', {
        'WWW-Authenticate': challenge('invalid_token'),
      });
    }
    const ext = extSchema.safeParse(t.ext ?? {});
    const claims = ext.success ? ext.data : {};
    return {
      subject: t.sub,
      clientId: t.client_id ?? '',
      email: claims.user?.email,
      name: claims.user?.name,
      role: claims.role,
      organisationId: claims.organisation?.id,
      organisationName: claims.organisation?.name,
      products: claims.products ?? [],
      subscriptionStatus: claims.subscriptionStatus,
    };
  }

  /** A server per request (stateless Streamable HTTP): its tools answer for this caller only. */
  function serverFor(who: McpCaller): McpServer {
    const server = new McpServer({ name: 'platform-agent', version: '1.0.0' });
    server.registerTool(
      'whoami',
      {
        title: 'Who am I',
        description:
          'Who the signed-in person is on the platform: their name, email, the organisation they signed in for, their role in it, and its products and subscription.',
      },
      async () => {
        const answer = {
          subject: who.subject,
          name: who.name ?? '',
          email: who.email ?? '',
          role: who.role ?? '',
          organisation: {
            id: who.organisationId ?? '',
            name: who.organisationName ?? '',
            products: who.products,
            subscriptionStatus: who.subscriptionStatus ?? '',
          },
          client: who.clientId,
        };
        return {
          content: [{ type: 'text', text: JSON.stringify(answer) }],
          structuredContent: answer,
        };
      },
    );
    return server;
  }

  app.route({
    method: ['POST', 'GET', 'DELETE'],
    url: MCP_PATH,
    // POST only: GET and DELETE answer 404 (no sessions).
    ...openApi({
      summary: 'Model Context Protocol, streamable HTTP without sessions: JSON answers.',
      security: 'bearer',
      body: jsonRpcSchema,
      responses: { 200: jsonRpcSchema, 202: null },
    }),
    handler: async (request, reply) => {
      const who = await caller(request);
      if (request.method !== 'POST') {
        // Stateless: no server-sent stream to resume and no session to end.
        throw new AppError('NOT_FOUND', 'This MCP server has no sessions; send requests with POST.');
      }
      const server = serverFor(who);
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      reply.hijack();
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    },
  });
}
