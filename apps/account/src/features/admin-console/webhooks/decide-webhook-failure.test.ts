import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../shared/errors/http-error.ts';
import { decideWebhookFailure, webhookFailureOf, type WebhookFailure } from './decide-webhook-failure.ts';

describe('decideWebhookFailure', () => {
  it.each<[string, { errorCode?: string; message: string }, WebhookFailure]>([
    [
      'a refused URL: beside the field, in the server words',
      { errorCode: 'WEBHOOK_URL_REFUSED', message: 'The address resolves to a private network.' },
      { type: 'url', message: 'The address resolves to a private network.' },
    ],
    [
      'a receiver that answered the test request at save with a redirect: beside the field, in the server words',
      {
        errorCode: 'WEBHOOK_URL_REFUSED',
        message: 'The test request sent to the URL failed (HTTP 302): redirects are not followed.',
      },
      {
        type: 'url',
        message: 'The test request sent to the URL failed (HTTP 302): redirects are not followed.',
      },
    ],
    [
      'an endpoint that is gone: the list loads again',
      { errorCode: 'WEBHOOK_NOT_FOUND', message: 'No such endpoint.' },
      { type: 'gone', message: 'No such endpoint.' },
    ],
    [
      'the limit: the alert line',
      { errorCode: 'WEBHOOK_LIMIT_REACHED', message: 'At most 10 endpoints.' },
      { type: 'alert', message: 'At most 10 endpoints.' },
    ],
    [
      'another refusal: the alert line',
      { errorCode: 'PERMISSION_DENIED', message: 'Not allowed.' },
      { type: 'alert', message: 'Not allowed.' },
    ],
    [
      'no code (network): the alert line',
      { message: 'Failed to fetch' },
      { type: 'alert', message: 'Failed to fetch' },
    ],
  ])('%s', (_rule, refused, expected) => {
    expect(decideWebhookFailure(refused)).toEqual(expected);
  });

  it('reads the code and message of the service answer', () => {
    const error = new HttpError(400, 'Bad Request', {
      errorCode: 'WEBHOOK_URL_REFUSED',
      message: 'Use https.',
    });
    expect(webhookFailureOf(error)).toEqual({ type: 'url', message: 'Use https.' });
  });
});
