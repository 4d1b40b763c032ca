import type { UiText } from '@ory/client';
import type { MessageValues } from '@acme/i18n/catalogue';
import type { z } from 'zod';
import { catalogue, messages, type MessageKey } from '../../ui/messages.ts';

/** zod's name of a value's type, as its "received …" says it. */
function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && Number.isNaN(value)) return 'NaN';
  return typeof value;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const p of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, p)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[p];
  }
  return value;
}

/** The key and values of an issue the traits schema produces (undefined for any other). */
function keyed(
  issue: z.core.$ZodIssue,
  input: unknown,
): { key: MessageKey; values: MessageValues } | undefined {
  const path = issue.path.map(String).join('.') || 'traits';
  switch (issue.code) {
    case 'invalid_type': {
      const received = valueAt(input, issue.path);
      return received === undefined
        ? { key: 'traitMissing', values: { path, expected: issue.expected } }
        : { key: 'traitWrongType', values: { path, expected: issue.expected, received: typeName(received) } };
    }
    case 'too_big':
      return issue.origin === 'string'
        ? { key: 'traitTooLong', values: { path, max: Number(issue.maximum) } }
        : undefined;
    case 'invalid_format':
      if (issue.format === 'email') return { key: 'traitInvalidEmail', values: { path } };
      if (issue.format === 'datetime') return { key: 'traitInvalidDatetime', values: { path } };
      return undefined;
    case 'invalid_value':
      return {
        key: 'traitInvalidOption',
        values: { path, options: issue.values.map((v) => JSON.stringify(v)).join('|') },
      };
    case 'unrecognized_keys':
      return {
        key: 'traitUnknownKeys',
        values: { path, count: issue.keys.length, keys: issue.keys.map((k) => `"${k}"`).join(', ') },
      };
    default:
      return undefined;
  }
}

/**
 * A trait check's refusal (4000001), its text `path: zod's English`, in the reader's locale. Each
 * issue code the traits schema produces has its own key; an issue no key words exactly as zod does
 * (a schema change not foreseen here) keeps zod's English through the generic fallback.
 */
export function traitIssueMessage(issue: z.core.$ZodIssue, input: unknown): UiText {
  const english = `${issue.path.map(String).join('.') || 'traits'}: ${issue.message}`;
  const made = keyed(issue, input);
  if (made && catalogue.t('en', made.key, made.values) === english)
    return messages.refusal(made.key, made.values);
  return messages.refusalText(english);
}
