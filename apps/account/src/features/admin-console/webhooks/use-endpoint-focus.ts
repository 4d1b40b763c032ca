import { useEffect, useRef } from 'react';

/** An endpoint's buttons, named `<action>:<endpointId>` so the focus can come back to one. */
export type ButtonRef = (key: string) => (el: HTMLButtonElement | null) => void;

/**
 * Where the focus goes in the Webhooks section: to a new secret's heading when one shows, back to the
 * button that opened a dialog or an edit once the list shows it again, or to the list's heading when
 * the row itself went.
 */
export function useEndpointFocus(secret: unknown) {
  const endpointsHeading = useRef<HTMLHeadingElement>(null);
  const secretHeading = useRef<HTMLHeadingElement>(null);
  const buttons = useRef(new Map<string, HTMLButtonElement>());
  // The button to focus once the list shows it again (after a dialog or an edit closes).
  const focusNext = useRef<string | null>(null);

  useEffect(() => {
    if (secret) secretHeading.current?.focus();
  }, [secret]);
  useEffect(() => {
    const key = focusNext.current;
    const button = key ? buttons.current.get(key) : undefined;
    if (button && !button.disabled) {
      button.focus();
      focusNext.current = null;
    }
  });

  const buttonRef: ButtonRef = (key) => (el) => {
    if (el) buttons.current.set(key, el);
    else buttons.current.delete(key);
  };
  return {
    endpointsHeading,
    secretHeading,
    buttonRef,
    /** Focus this button once the list shows it (enabled) again. */
    focusLater: (key: string) => {
      focusNext.current = key;
    },
    focusNow: (key: string) => buttons.current.get(key)?.focus(),
    focusList: () => endpointsHeading.current?.focus(),
  };
}
