import { useEffect, useRef, useState } from 'react';
import { getConfig } from '../../shared/config/env.ts';
import { paths, withQuery } from '../../shared/config/paths.ts';
import { createVerificationFlow, submitVerification } from '../../shared/identity-client/identity-client.ts';
import { csrfToken } from '../../shared/identity-client/nodes.ts';

/**
 * Login step 4 says the instructions were sent: on showing the step, start a verification
 * flow and have the identity service email its code (once per visit; the identity service limits
 * code mails per address). Answers where the "verify" link goes: the verification screen with that
 * flow, so the user only types the code; before the flow exists, the plain verification screen.
 */
export function useSendVerification(email: string): string {
  const [flowId, setFlowId] = useState<string | null>(null);
  const sent = useRef(false);
  useEffect(() => {
    if (sent.current || !email) return;
    sent.current = true;
    const { identityUrl } = getConfig();
    void (async () => {
      try {
        const flow = await createVerificationFlow(identityUrl);
        await submitVerification(identityUrl, flow.id, {
          method: 'code',
          email,
          csrf_token: csrfToken(flow) || undefined,
        });
        setFlowId(flow.id);
      } catch {
        // The verification screen can still send a code itself.
      }
    })();
  }, [email]);
  return flowId ? withQuery(paths.verification, { flow: flowId }) : paths.verification;
}
