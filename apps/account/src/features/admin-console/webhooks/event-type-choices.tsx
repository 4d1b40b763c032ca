import type { WebhookEventType } from '@acme/users-contract/webhooks';
import type { Ref } from 'react';
import { FieldErrors } from '../../../shared/ui/field-errors.tsx';
import type { EndpointFormValues } from './decide-endpoint-form.ts';
import { groupEventTypes } from './group-event-types.ts';
import { webhooksCopy as t } from './webhooks-copy.ts';

const GROUPS = groupEventTypes();

/** The endpoint form's events: "All events", or the types ticked in their groups. */
export function EventTypeChoices(props: {
  idPrefix: string;
  values: EndpointFormValues;
  /** "All events", which takes the focus when no type is chosen. */
  allRef: Ref<HTMLInputElement>;
  error: string | null;
  errorId: string;
  onChange: (values: EndpointFormValues) => void;
}) {
  const { idPrefix: id, values, allRef, error, errorId, onChange } = props;
  const allHint = `${id}-all-hint`;
  const tick = (type: WebhookEventType, on: boolean) =>
    onChange({
      ...values,
      eventTypes: on ? [...values.eventTypes, type] : values.eventTypes.filter((other) => other !== type),
    });
  return (
    <fieldset className="console-choices webhook-events" aria-describedby={error ? errorId : undefined}>
      <legend>{t.events}</legend>
      <div className="checkbox">
        <input
          ref={allRef}
          id={`${id}-all`}
          type="checkbox"
          checked={values.allEvents}
          aria-describedby={allHint}
          onChange={(e) => onChange({ ...values, allEvents: e.target.checked })}
        />
        <label htmlFor={`${id}-all`}>{t.allEvents}</label>
      </div>
      <p id={allHint} className="hint">
        {t.allEventsHint}
      </p>
      {values.allEvents
        ? null
        : GROUPS.map(({ group, types }) => (
            <fieldset key={group} className="console-choices webhook-event-group">
              <legend>{t.groups[group]}</legend>
              <ul>
                {types.map((type) => (
                  <li key={type} className="checkbox">
                    <input
                      id={`${id}-${type}`}
                      type="checkbox"
                      checked={values.eventTypes.includes(type)}
                      onChange={(e) => tick(type, e.target.checked)}
                    />
                    <label htmlFor={`${id}-${type}`}>
                      {t.eventTypes[type]} <code>{type}</code>
                    </label>
                  </li>
                ))}
              </ul>
            </fieldset>
          ))}
      <FieldErrors id={errorId} errors={error ? [error] : []} />
    </fieldset>
  );
}
