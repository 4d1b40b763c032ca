import type { Logger } from 'pino';
import { requestIdHeaders } from '@acme/service-kit/request-id';

/**
 * The agent service's `POST /misc/unregistered-user`: best effort. The caller's Microsoft token goes
 * along as the bearer: the agent service verifies it as this service does and records only an
 * address the token names. A failure is logged (without the address or the token) and does not
 * change the caller's answer.
 */
export function createAgentClient(baseUrl: string, timeoutMs: number, logger: Logger) {
  return {
    async recordUnregisteredUser(bearer: string, email: string, name: string): Promise<void> {
      try {
        const res = await fetch(`${baseUrl}/misc/unregistered-user`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${bearer}`,
            ...requestIdHeaders(),
          },
          body: JSON.stringify({ email, name: name.slice(0, 200) }),
          signal: AbortSignal.timeout(timeoutMs),
        });
        if (!res.ok) logger.warn({ status: res.status }, 'agent service refused an unregistered-user record');
      } catch {
        logger.warn('agent service unreachable for an unregistered-user record');
      }
    },
  };
}
