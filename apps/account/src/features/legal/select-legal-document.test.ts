import { describe, expect, it } from 'vitest';
import type { LegalDocument } from './legal-documents.ts';
import { LEGAL_DOCUMENTS } from './legal-documents.ts';
import type { CurrentDocument, LegalDocumentInput } from './select-legal-document.ts';
import { selectLegalDocument } from './select-legal-document.ts';

const doc = (version: string): LegalDocument => ({ version, effective: '2026-01-01', sections: [] });
const V2 = doc('2026-02');
const V1 = doc('2026-01');
const APPS = ['http://localhost:4000', 'http://localhost:4001'];
const ok = (version: string, url: string): CurrentDocument => ({ status: 'ok', version, url });

const base: LegalDocumentInput = {
  queryVersion: null,
  current: { status: 'loading' },
  pagePath: '/account/terms',
  appOrigins: APPS,
  shipped: [V2, V1],
};

describe('selectLegalDocument', () => {
  it.each<[string, Partial<LegalDocumentInput>, ReturnType<typeof selectLegalDocument>]>([
    [
      'a shipped version in the address is shown at once',
      { queryVersion: '2026-01' },
      { type: 'show', document: V1 },
    ],
    [
      'an unknown version in the address waits for the user service',
      { queryVersion: '1999-01' },
      { type: 'loading' },
    ],
    ['no answer yet: loading', {}, { type: 'loading' }],
    [
      'the current version, on this page of another application (the default URL)',
      { current: ok('2026-01', 'http://localhost:4000/account/terms') },
      { type: 'show', document: V1 },
    ],
    [
      'the organisation’s real document elsewhere: go there',
      { current: ok('2026-01', 'https://acme.example/legal/terms') },
      { type: 'redirect', url: 'https://acme.example/legal/terms' },
    ],
    [
      'the same path on a foreign origin is elsewhere too',
      { current: ok('2026-01', 'https://evil.example/account/terms') },
      { type: 'redirect', url: 'https://evil.example/account/terms' },
    ],
    [
      'another page of an application (privacy for terms) is elsewhere',
      { current: ok('2026-01', 'http://localhost:4000/account/privacy') },
      { type: 'redirect', url: 'http://localhost:4000/account/privacy' },
    ],
    [
      'a URL that is not http(s) is never followed: the sample is shown',
      { current: ok('2026-01', 'javascript:alert(1)') },
      { type: 'show', document: V1 },
    ],
    [
      'a current version that is not shipped: the newest shipped one',
      { current: ok('2027-01', 'http://localhost:4001/account/terms') },
      { type: 'show', document: V2 },
    ],
    [
      'the user service failed: the newest shipped one',
      { current: { status: 'error' } },
      { type: 'show', document: V2 },
    ],
  ])('%s', (_label, input, view) => {
    expect(selectLegalDocument({ ...base, ...input })).toEqual(view);
  });

  it('ships a sample of each document whose version is the user service’s default (2026-01)', () => {
    expect(LEGAL_DOCUMENTS.terms[0]?.version).toBe('2026-01');
    expect(LEGAL_DOCUMENTS.privacy[0]?.version).toBe('2026-01');
  });
});
