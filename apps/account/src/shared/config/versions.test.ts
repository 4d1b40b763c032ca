// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { appVersions, applyLayoutConstants, versionsLine } from './versions.ts';

describe('the business constants the page uses (versions, form card width)', () => {
  it('reports the sign-in wrapper version 2.2.0 and the Teams SDK version 2.30.0', () => {
    expect(appVersions()).toEqual({ signInWrapper: '2.2.0', teamsSdk: '2.30.0' });
    expect(versionsLine()).toBe('sign-in wrapper 2.2.0 · Teams SDK 2.30.0');
  });
  it('hands the form card width (440 px) to the CSS as --form-card-width', () => {
    const root = document.createElement('div');
    applyLayoutConstants(root);
    expect(root.style.getPropertyValue('--form-card-width')).toBe('440px');
  });
});
