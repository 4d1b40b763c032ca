import type { FastifyInstance, FastifyReply } from 'fastify';
import type { OAuth2Runtime } from '../context.ts';

/**
 * Hydra's admin client API over every client (clients/client-store.ts): create (the secret answered
 * once), list with Hydra's pagination, read, replace (PUT), JSON Patch (PATCH), delete, set token
 * lifespans, rotate the secret and end rotated secrets' grace.
 */
export function registerClientRoutes(app: FastifyInstance, rt: OAuth2Runtime): void {
  const clients = () => rt.clients;
  const id = (params: unknown) => String((params as { id?: unknown }).id ?? '');
  const noStore = (reply: FastifyReply) => reply.header('Cache-Control', 'no-store');
  // JSON Patch documents arrive as application/json-patch+json.
  app.addContentTypeParser('application/json-patch+json', { parseAs: 'string' }, (req, body, done) =>
    app.getDefaultJsonParser('error', 'error')(req, body as string, done),
  );

  app.post('/admin/clients', async (req, reply) => {
    const created = await clients().create(req.body);
    rt.logger.info({ clientId: created.client_id }, 'OAuth2 client created');
    return noStore(reply).status(201).send(created);
  });
  app.get('/admin/clients', async (req, reply) => {
    const query = (req.query ?? {}) as Record<string, unknown>;
    const page = await clients().list(query);
    const link = (token?: string) => {
      const params = new URLSearchParams({ page_size: String(page.size) });
      for (const key of ['client_name', 'owner'] as const) {
        if (typeof query[key] === 'string') params.set(key, query[key]);
      }
      if (token) params.set('page_token', token);
      return `</admin/clients?${params.toString()}>`;
    };
    const links = [`${link()}; rel="first"`, ...(page.next ? [`${link(page.next)}; rel="next"`] : [])];
    return noStore(reply).header('Link', links.join(',')).send(page.items);
  });
  app.get('/admin/clients/:id', async (req, reply) =>
    noStore(reply).send(await clients().get(id(req.params))),
  );
  app.put('/admin/clients/:id', async (req, reply) => {
    const updated = await clients().replace(id(req.params), req.body);
    rt.logger.info({ clientId: updated.client_id }, 'OAuth2 client replaced');
    return noStore(reply).send(updated);
  });
  app.patch('/admin/clients/:id', async (req, reply) => {
    const updated = await clients().patch(id(req.params), req.body);
    rt.logger.info({ clientId: updated.client_id }, 'OAuth2 client patched');
    return noStore(reply).send(updated);
  });
  app.put('/admin/clients/:id/lifespans', async (req, reply) =>
    noStore(reply).send(await clients().setLifespans(id(req.params), req.body)),
  );
  app.post('/admin/clients/:id/secrets/rotate', async (req, reply) => {
    const rotated = await clients().rotateSecret(id(req.params));
    rt.logger.info({ clientId: rotated.client_id }, 'OAuth2 client secret rotated');
    return noStore(reply).send(rotated);
  });
  app.delete('/admin/clients/:id/secrets/rotate', async (req, reply) =>
    noStore(reply).send(await clients().deleteRotatedSecrets(id(req.params))),
  );
  app.delete('/admin/clients/:id', async (req, reply) => {
    await clients().remove(id(req.params));
    rt.logger.info({ clientId: id(req.params) }, 'OAuth2 client deleted');
    return reply.status(204).send();
  });
}
