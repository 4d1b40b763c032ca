import type { Logger } from 'pino';
import { requestIdHeaders } from '@acme/service-kit/request-id';

/**
 * The agent service's `POST /misc/unregistered-user`: best effort. A failure is logged (without
 * the address) and does not change the caller's answer.
 */
export function createAgentClient(baseUrl: string, timeoutMs: number, logger: Logger) {
  return {
    async recordUnregisteredUser(email: string, name: string): Promise<void> {
      try {
        const res = await fetch(`${baseUrl}/misc/unregistered-user`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...requestIdHeaders() },
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
