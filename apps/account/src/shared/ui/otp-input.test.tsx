// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OtpInput } from './otp-input.tsx';

afterEach(cleanup);

function Harness({ onComplete, initial = '' }: { onComplete?: (v: string) => void; initial?: string }) {
  const [value, setValue] = useState(initial);
  return <OtpInput label="2FA code" value={value} onChange={setValue} onComplete={onComplete} />;
}

const input = () => screen.getByLabelText('2FA code') as HTMLInputElement;
const type = (key: string) => fireEvent.keyDown(input(), { key });
const cells = () => Array.from(document.querySelectorAll('.otp-cell')).map((c) => c.textContent);

describe('OtpInput', () => {
  it('is one real input for one-time codes with six cells', () => {
    render(<Harness />);
    expect(input().getAttribute('autocomplete')).toBe('one-time-code');
    expect(input().getAttribute('inputmode')).toBe('numeric');
    expect(input().maxLength).toBe(6);
    expect(document.querySelectorAll('.otp-cell')).toHaveLength(6);
    expect(document.querySelectorAll('input')).toHaveLength(1);
  });

  it('accepts digits only and completes on the sixth', () => {
    const onComplete = vi.fn();
    render(<Harness onComplete={onComplete} />);
    for (const key of ['1', 'a', '2', ' ', '3', '4', '5']) type(key);
    expect(input().value).toBe('12345');
    expect(onComplete).not.toHaveBeenCalled();
    type('6');
    expect(input().value).toBe('123456');
    expect(cells()).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(onComplete).toHaveBeenCalledWith('123456');
  });

  it('accepts a numeric paste of up to six digits and refuses others', () => {
    const onComplete = vi.fn();
    render(<Harness onComplete={onComplete} />);
    fireEvent.paste(input(), { clipboardData: { getData: () => '12a456' } });
    expect(input().value).toBe('');
    fireEvent.paste(input(), { clipboardData: { getData: () => '1234567' } });
    expect(input().value).toBe('');
    fireEvent.paste(input(), { clipboardData: { getData: () => '123' } });
    expect(input().value).toBe('123');
    fireEvent.paste(input(), { clipboardData: { getData: () => ' 654321 ' } });
    expect(input().value).toBe('654321');
    expect(onComplete).toHaveBeenCalledWith('654321');
  });

  it('accepts all-digit autofill through change events only', () => {
    const onComplete = vi.fn();
    render(<Harness onComplete={onComplete} />);
    fireEvent.change(input(), { target: { value: '12x' } });
    expect(input().value).toBe('');
    fireEvent.change(input(), { target: { value: '987654' } });
    expect(onComplete).toHaveBeenCalledWith('987654');
  });

  it('Backspace deletes before the caret, Delete at it, arrows move between cells', () => {
    render(<Harness initial="12345" />);
    input().setSelectionRange(5, 5);
    type('Backspace');
    expect(input().value).toBe('1234');
    input().setSelectionRange(4, 4);
    type('ArrowLeft');
    type('ArrowLeft');
    expect(input().selectionStart).toBe(2);
    type('Delete');
    expect(input().value).toBe('124');
    input().setSelectionRange(1, 1);
    type('ArrowRight');
    expect(input().selectionStart).toBe(2);
    type('9');
    expect(input().value).toBe('129');
  });

  it('typing in a filled cell overwrites it', () => {
    render(<Harness initial="111111" />);
    input().setSelectionRange(2, 2);
    type('7');
    expect(input().value).toBe('117111');
  });
});
