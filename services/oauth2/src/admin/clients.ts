import type { FastifyInstance } from 'fastify';
import { apiClientAdmin } from '../api-clients.ts';
import type { OAuth2Runtime } from '../context.ts';

/** Hydra's admin client API for API clients: create (the secret answered once), read, delete. */
export function registerClientRoutes(app: FastifyInstance, rt: OAuth2Runtime): void {
  const clients = apiClientAdmin(rt.adapters, () => rt.clock.now());
  const id = (params: unknown) => String((params as { id?: unknown }).id ?? '');

  app.post('/admin/clients', async (req, reply) => {
    const created = await clients.create(req.body);
    rt.logger.info({ clientId: created.client_id }, 'API client created');
    return reply.status(201).header('Cache-Control', 'no-store').send(created);
  });
  app.get('/admin/clients/:id', async (req) => clients.get(id(req.params)));
  app.delete('/admin/clients/:id', async (req, reply) => {
    await clients.remove(id(req.params));
    rt.logger.info({ clientId: id(req.params) }, 'API client deleted');
    return reply.status(204).send();
  });
}
