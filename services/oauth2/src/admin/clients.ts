import type { FastifyInstance } from 'fastify';
import { apiClientAdmin } from '../api-clients.ts';
import { clientById, deviceClientById, type OAuth2Runtime } from '../context.ts';
import { clientView } from '../interactions/challenge.ts';

/**
 * Hydra's admin client API: list and read every client (the applications' and the device clients
 * from configuration, API clients from the database) in Hydra's `oAuth2Client` shape without
 * secrets; create (the secret answered once) and delete API clients.
 */
export function registerClientRoutes(app: FastifyInstance, rt: OAuth2Runtime): void {
  const clients = apiClientAdmin(rt.adapters, () => rt.clock.now());
  const id = (params: unknown) => String((params as { id?: unknown }).id ?? '');

  app.post('/admin/clients', async (req, reply) => {
    const created = await clients.create(req.body);
    rt.logger.info({ clientId: created.client_id }, 'API client created');
    return reply.status(201).header('Cache-Control', 'no-store').send(created);
  });
  const configured = () => [
    ...rt.config.clients.map((c) => c.client_id),
    ...rt.config.deviceClients.map((c) => c.client_id),
  ];
  app.get('/admin/clients', async (_req, reply) => {
    reply.header('Cache-Control', 'no-store');
    return [...configured().map((clientId) => clientView(rt, clientId)), ...(await clients.list())];
  });
  app.get('/admin/clients/:id', async (req) => {
    const clientId = id(req.params);
    if (clientById(rt.config, clientId) || deviceClientById(rt.config, clientId))
      return clientView(rt, clientId);
    return clients.get(clientId);
  });
  app.delete('/admin/clients/:id', async (req, reply) => {
    await clients.remove(id(req.params));
    rt.logger.info({ clientId: id(req.params) }, 'API client deleted');
    return reply.status(204).send();
  });
}
