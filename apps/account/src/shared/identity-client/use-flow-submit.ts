import { useCallback, useState } from 'react';
import { showToast } from '../errors/error-store.ts';
import { getErrorMessage } from '../errors/get-error-message.ts';
import { redirectTo } from '../navigation/history.ts';
import type { FlowErrorHandlers } from './handle-flow-error.ts';
import { handleFlowError, routeFlowMessages } from './handle-flow-error.ts';

interface FlowLike {
  ui: Parameters<typeof routeFlowMessages>[0]['ui'];
}

export interface FlowSubmitOptions<F> {
  /** The toast text for a message or failure of this flow, e.g. "Error with login flow: …". */
  toast: (message: string) => string;
  /** Inputs whose messages are shown under the input (the rest go to the form or a toast). */
  fields?: readonly string[];
  /** A 400 answer: the updated flow, after its messages were routed. */
  rerender?: (flow: F) => void;
  /** Expired, unknown or replaced flow; without a handler the user sees a toast. */
  restart?: (reason: string, error: unknown) => void;
  /** The browser must go elsewhere (a 422, the aal2 step); defaults to a full-page navigation. */
  redirect?: (url: string) => void;
  /** A session already exists; without a handler the user sees a toast. */
  home?: () => void;
  /** A 401; without a handler it is a restart. */
  unauthorized?: (error: unknown) => void;
  /** Replaces the outcome of specific error ids. */
  overrides?: Record<string, () => void>;
}

export interface FlowSubmit<F> {
  busy: boolean;
  formErrors: string[];
  fieldErrors: Record<string, string[]>;
  /** Runs one submission: clears the messages, runs `action`, routes any failure. */
  submit: (action: () => Promise<void>) => Promise<void>;
  /** Shows a flow's messages (a 200 answer that still carries errors). */
  show: (flow: F) => void;
  /** Routes a failure outside `submit` (loading or creating the flow). */
  fail: (error: unknown) => void;
  clear: () => void;
}

/**
 * The one submit hook of the flow screens. Every failure goes through `handleFlowError`: a server
 * message of type error is a toast, and also under its field or on the form when it is about the
 * input (`routeFlowMessages`); other failures go to the error page (the screen's `restart`/`home`)
 * or a redirect.
 */
export function useFlowSubmit<F extends FlowLike>(options: FlowSubmitOptions<F>): FlowSubmit<F> {
  const [busy, setBusy] = useState(false);
  const [formErrors, setFormErrors] = useState<string[]>([]);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string[]>>({});
  const { toast, fields, rerender, restart, redirect, home, unauthorized, overrides } = options;

  const clear = useCallback(() => {
    setFormErrors([]);
    setFieldErrors({});
  }, []);

  const show = useCallback(
    (flow: F) => {
      const routed = routeFlowMessages(flow, fields);
      setFormErrors(routed.form);
      setFieldErrors(routed.fields);
      for (const text of routed.toasts) showToast(toast(text));
    },
    [fields, toast],
  );

  const fail = useCallback(
    (error: unknown) => {
      const handlers: FlowErrorHandlers<F> = {
        rerender: (flow) => {
          show(flow);
          rerender?.(flow);
        },
        restart: (reason) => (restart ? restart(reason, error) : showToast(toast(getErrorMessage(error)))),
        redirect: redirect ?? redirectTo,
        home: () => (home ? home() : showToast(toast(getErrorMessage(error)))),
        unauthorized: unauthorized ? () => unauthorized(error) : undefined,
        error: (message) => showToast(toast(message)),
        overrides,
      };
      handleFlowError(error, handlers);
    },
    [show, rerender, restart, redirect, home, unauthorized, overrides, toast],
  );

  const submit = useCallback(
    async (action: () => Promise<void>) => {
      setBusy(true);
      clear();
      try {
        await action();
      } catch (error) {
        fail(error);
      } finally {
        setBusy(false);
      }
    },
    [clear, fail],
  );

  return { busy, formErrors, fieldErrors, submit, show, fail, clear };
}
