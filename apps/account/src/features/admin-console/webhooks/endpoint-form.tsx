import type { WebhookEndpointInput } from '@acme/users-contract/webhooks';
import { useId, useRef, useState } from 'react';
import { FieldErrors } from '../../../shared/ui/field-errors.tsx';
import { decideEndpointForm, type EndpointFormValues } from './decide-endpoint-form.ts';
import { EventTypeChoices } from './event-type-choices.tsx';
import { webhooksCopy as t } from './webhooks-copy.ts';

/** What a submit came to: saved, or not (with the server's words when it refused the URL). */
export type SubmitResult = { saved: true } | { saved: false; urlRefused?: string };

/**
 * The endpoint form, to add one or edit one: the URL and the events to send ("All events", or the
 * types ticked in two groups). A refused URL shows beside the field (the server's words), which takes
 * the focus; after any other refusal the form keeps what was typed.
 */
export function EndpointForm(props: {
  heading: string;
  headingLevel: 3 | 4;
  initial: EndpointFormValues;
  submitLabel: string;
  busy: boolean;
  onSubmit: (body: Required<WebhookEndpointInput>) => Promise<SubmitResult>;
  /** After a save: the form empties (adding) rather than staying as saved. */
  resetOnSave?: boolean;
  onCancel?: () => void;
  /** The URL field takes the focus when the form opens (editing). */
  focusOnOpen?: boolean;
}) {
  const id = useId();
  const Heading = props.headingLevel === 3 ? 'h3' : 'h4';
  const [values, setValues] = useState(props.initial);
  const [urlError, setUrlError] = useState<string | null>(null);
  const [eventsError, setEventsError] = useState<string | null>(null);
  const urlRef = useRef<HTMLInputElement>(null);
  const allRef = useRef<HTMLInputElement>(null);
  const ids = {
    heading: `${id}-heading`,
    url: `${id}-url`,
    urlHint: `${id}-url-hint`,
    urlError: `${id}-url-error`,
    events: `${id}-events-error`,
  };

  async function submit() {
    const decision = decideEndpointForm(values);
    setUrlError(!decision.ok && decision.field === 'url' ? decision.error : null);
    setEventsError(!decision.ok && decision.field === 'events' ? decision.error : null);
    if (!decision.ok) {
      (decision.field === 'url' ? urlRef : allRef).current?.focus();
      return;
    }
    const result = await props.onSubmit(decision.body);
    if (result.saved) {
      if (props.resetOnSave) setValues(props.initial);
    } else if (result.urlRefused) {
      setUrlError(result.urlRefused);
      urlRef.current?.focus();
    }
  }

  return (
    <form
      className="console-form webhook-form"
      aria-labelledby={ids.heading}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <Heading id={ids.heading}>{props.heading}</Heading>
      <div className="field">
        <label htmlFor={ids.url}>{t.url}</label>
        <input
          ref={urlRef}
          id={ids.url}
          type="url"
          inputMode="url"
          autoComplete="off"
          spellCheck={false}
          required
          autoFocus={props.focusOnOpen}
          value={values.url}
          aria-invalid={urlError ? true : undefined}
          aria-describedby={urlError ? `${ids.urlError} ${ids.urlHint}` : ids.urlHint}
          onChange={(e) => setValues({ ...values, url: e.target.value })}
        />
        <FieldErrors id={ids.urlError} errors={urlError ? [urlError] : []} />
        <p id={ids.urlHint} className="hint">
          {t.urlHint}
        </p>
      </div>
      <EventTypeChoices
        idPrefix={id}
        values={values}
        allRef={allRef}
        error={eventsError}
        errorId={ids.events}
        onChange={(next) => {
          setValues(next);
          if (next.allEvents !== values.allEvents) setEventsError(null);
        }}
      />
      <div className="row webhook-actions">
        <button type="submit" className="button" disabled={props.busy}>
          {props.submitLabel}
        </button>
        {props.onCancel ? (
          <button type="button" className="button secondary" onClick={props.onCancel}>
            {t.cancel}
          </button>
        ) : null}
      </div>
    </form>
  );
}
