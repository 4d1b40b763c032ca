// @vitest-environment jsdom
import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { resetScreenBetweenTests } from '../../testing/screen.ts';
import { registry } from '../storage/registry.ts';
import { write } from '../storage/storage.ts';
import { DocumentLink } from './document-link.tsx';

resetScreenBetweenTests();

describe('DocumentLink', () => {
  it('opens in a new tab: the page with the form stays', () => {
    const open = vi.fn();
    vi.stubGlobal('open', open);
    render(<DocumentLink href="/account/terms">Terms of Service</DocumentLink>);
    const link = screen.getByRole('link', { name: 'Terms of Service' });
    expect(link.getAttribute('href')).toBe('/account/terms');
    expect(link.getAttribute('target')).toBe('_blank');
    expect(link.getAttribute('rel')).toBe('noopener noreferrer');
    // The browser follows the link itself (into a new tab): the click is not taken over.
    expect(fireEvent.click(link)).toBe(true);
    expect(open).not.toHaveBeenCalled();
  });

  it('inside the Teams frame opens a new window', () => {
    const open = vi.fn();
    vi.stubGlobal('open', open);
    write(registry.isTeams, true);
    render(<DocumentLink href="/account/privacy">Privacy Notice</DocumentLink>);
    const followed = fireEvent.click(screen.getByRole('link', { name: 'Privacy Notice' }));
    expect(followed).toBe(false);
    expect(open).toHaveBeenCalledWith(
      '/account/privacy',
      '_blank',
      expect.stringMatching(/^popup,width=\d+,height=\d+,noopener/),
    );
  });
});
