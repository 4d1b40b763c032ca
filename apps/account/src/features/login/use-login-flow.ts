import { useEffect, useEffectEvent, useRef, useState, type RefObject } from 'react';
import { copy } from '../../copy.ts';
import type { AccountConfig } from '../../shared/config/env.ts';
import { initialPagePath, paths } from '../../shared/config/paths.ts';
import { showToast } from '../../shared/errors/error-store.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import { HttpError } from '../../shared/errors/http-error.ts';
import { appWordedText, handleFlowError } from '../../shared/identity-client/handle-flow-error.ts';
import { errorMessages } from '../../shared/identity-client/nodes.ts';
import { createLoginFlow, getLoginFlow } from '../../shared/identity-client/identity-client.ts';
import type { LoginFlow } from '../../shared/identity-client/types.ts';
import { navigate, redirectTo } from '../../shared/navigation/history.ts';
import { startAuthorization, type AuthorizationConfig } from '../../shared/oauth2/start-authorization.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read, remove } from '../../shared/storage/storage.ts';

/** What the login flow reads of the configuration: the identity service, the initial page, the client. */
export type LoginFlowConfig = AuthorizationConfig & Pick<AccountConfig, 'identityUrl' | 'initialPage'>;

export interface LoginFlowInput {
  config: LoginFlowConfig;
  /** A flow id from the query (the identity service's browser redirects). */
  flowId: string | undefined;
  storedChallenge: string | null;
  /** Load or create the flow now (the step depends on it, or a pending challenge must be checked). */
  eager: boolean;
  aal2: boolean;
  /** Reads the clock again after an authorization could not start (the lock is held). */
  refresh: () => void;
}

/** The page's own flow load while it is on its way; `key` names what it loads. */
interface PendingLoad {
  key: string;
  load: Promise<LoginFlow>;
  settled: Promise<LoginFlow | null>;
}

/**
 * Keeps the page's own flow load in `ref` while it is on its way, so that a step submitted before it
 * arrived waits for it, and an eager effect that runs again (the session check settling) reuses it,
 * rather than creating a second flow: in a browser without the anti-CSRF cookie yet, both creations
 * set a different cookie, the later Set-Cookie wins (even after the page has left for an identity
 * provider), and the flow bound to the other cookie then fails its same-browser check on the way back.
 */
function trackPending(ref: RefObject<PendingLoad | null>, key: string, load: Promise<LoginFlow>): void {
  const pending: PendingLoad = {
    key,
    load,
    settled: load.then(
      (f) => f,
      () => null,
    ),
  };
  ref.current = pending;
  void pending.settled.then(() => {
    if (ref.current === pending) ref.current = null;
  });
}

/** What the page's own flow is loaded for: a load with the same key is the same flow. */
const eagerKey = (input: LoginFlowInput) =>
  JSON.stringify([input.flowId ?? null, input.storedChallenge, input.aal2]);

/** The page's own flow: the one still on its way for the same input, or a new load (tracked). */
function eagerFlowLoad(ref: RefObject<PendingLoad | null>, input: LoginFlowInput): Promise<LoginFlow> {
  const key = eagerKey(input);
  if (ref.current?.key === key) return ref.current.load;
  const { identityUrl } = input.config;
  const load = input.flowId
    ? getLoginFlow(identityUrl, input.flowId)
    : createLoginFlow(identityUrl, {
        login_challenge: input.storedChallenge ?? undefined,
        aal: input.aal2 ? 'aal2' : undefined,
      });
  trackPending(ref, key, load);
  return load;
}

interface ObtainOptions {
  refresh?: boolean;
  aal2?: boolean;
  fresh?: boolean;
}

/**
 * A new flow for `options`. A step submitted before the page's own load started (its effect not run
 * yet) creates the flow that load would: tracked as it, so that the load, starting meanwhile, takes
 * this one instead of creating a second (see trackPending).
 */
function createFlow(
  ref: RefObject<PendingLoad | null>,
  input: LoginFlowInput,
  options: ObtainOptions,
): Promise<LoginFlow> {
  const challenge = read(registry.loginChallenge);
  const load = createLoginFlow(input.config.identityUrl, {
    login_challenge: challenge ?? undefined,
    refresh: options.refresh,
    aal: options.aal2 ? 'aal2' : undefined,
  });
  const sameAsEager =
    !input.flowId &&
    !options.refresh &&
    Boolean(options.aal2) === input.aal2 &&
    challenge === input.storedChallenge;
  if (sameAsEager) trackPending(ref, eagerKey(input), load);
  return load;
}

/** The login flow of the screen: loaded eagerly when needed, created on the first submit otherwise. */
export function useLoginFlow(input: LoginFlowInput) {
  const { config } = input;
  const [flow, setFlow] = useState<LoginFlow | null>(null);
  // The eager load was answered with an error (handled by failToLoad): nothing is being checked now.
  const [eagerFailed, setEagerFailed] = useState(false);
  const eagerLoad = useRef<PendingLoad | null>(null);

  /** A login flow could not be created or loaded: a stale challenge restarts the authorization. */
  function failToLoad(error: unknown): void {
    const challenge = read(registry.loginChallenge);
    const restart = () => {
      // Expired or unknown challenge or flow: a fresh authorization; the email result is kept.
      remove(registry.loginChallenge);
      setFlow(null);
      if (input.flowId) navigate(paths.login, { replace: true });
      void startAuthorization(config).then((started) => {
        if (!started) input.refresh();
      });
    };
    // A 4xx on a pending challenge means it is stale (unknown, expired or already used); a network
    // error or 5xx does not, and restarting then would loop through the authorization server.
    const stale = challenge !== null && error instanceof HttpError && error.status < 500;
    const toast = (message: string) => showToast(copy.errors.loginFlow(message));
    handleFlowError<LoginFlow>(error, {
      overrides: challenge
        ? {
            // The identity service accepted the login request already; a browser navigation follows it.
            session_already_available: () => {
              const url = new URL('/self-service/login/browser', config.identityUrl);
              url.searchParams.set('login_challenge', challenge);
              redirectTo(url.toString());
            },
          }
        : undefined,
      redirect: redirectTo,
      home: () => navigate(initialPagePath(config.initialPage), { replace: true }),
      restart,
      rerender: () => (stale ? restart() : toast(getErrorMessage(error))),
      unauthorized: () => (stale ? restart() : toast(getErrorMessage(error))),
      error: (message) => (stale ? restart() : toast(message)),
    });
  }

  const onEager = useEffectEvent(() => {
    let cancelled = false;
    const load = eagerFlowLoad(eagerLoad, input);
    load.then(
      (f) => {
        if (cancelled) return;
        setFlow(f);
        // Errors the identity service put on the flow (a provider's refusal after single sign-on,
        // a failed submit, a remembered login of a deactivated account) are shown as toasts; those
        // the app words itself in its own words.
        for (const m of errorMessages(f)) showToast(appWordedText(m.id) ?? copy.errors.loginFlow(m.text));
      },
      (error: unknown) => {
        if (cancelled) return;
        failToLoad(error);
        setEagerFailed(true);
      },
    );
    return () => {
      cancelled = true;
    };
  });
  const eager = input.eager && !flow;
  useEffect(() => (eager ? onEager() : undefined), [eager]);

  /**
   * The current flow, or a new one (aal2 for the second factor, refresh for a password confirmation;
   * `fresh`: the current one was refused, so never it, even before the state update lands).
   */
  async function obtainFlow(options: ObtainOptions): Promise<LoginFlow | null> {
    // See trackPending. No await when nothing is on its way: the creation below then starts (and is
    // tracked) in the same turn, before the page's own load can start and create a second flow.
    const pending = flow ? undefined : eagerLoad.current;
    const current = flow ?? (pending ? await pending.settled : null);
    if (current && !options.fresh && (options.aal2 ? current.requested_aal === 'aal2' : true)) return current;
    try {
      const created = await createFlow(eagerLoad, input, options);
      setFlow(created);
      return created;
    } catch (error) {
      failToLoad(error);
      return null;
    }
  }

  return { flow, setFlow, obtainFlow, eagerFailed };
}

/** The login flow as the steps use it: the flow, setting it, and obtaining one. */
export type LoginFlowHandle = ReturnType<typeof useLoginFlow>;
