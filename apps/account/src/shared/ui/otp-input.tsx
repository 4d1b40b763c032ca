import type { ClipboardEvent, KeyboardEvent } from 'react';
import { useId, useRef, useState } from 'react';
import { OTP_LENGTH } from '../../constants.ts';
import { FieldErrors } from './field-errors.tsx';
import { decideOtpKey } from './decide-otp-key.ts';

// One-time code: six single-digit cells backed by ONE real input (autocomplete="one-time-code",
// inputmode="numeric") so password managers and OS autofill work. Only digits; pastes of up to six
// digits when all numeric; Backspace, Delete and the arrow keys move between cells; the sixth digit
// completes the code.

export interface OtpInputProps {
  label: string;
  value: string;
  onChange: (value: string) => void;
  onComplete?: (value: string) => void;
  disabled?: boolean;
  autoFocus?: boolean;
  errors?: string[];
  length?: number;
}

const digitsOnly = (text: string, length: number) => new RegExp(`^[0-9]{0,${length}}$`).test(text);

export function OtpInput({
  label,
  value,
  onChange,
  onComplete,
  disabled = false,
  autoFocus = false,
  errors = [],
  length = OTP_LENGTH,
}: OtpInputProps) {
  const id = useId();
  const ref = useRef<HTMLInputElement>(null);
  const [caret, setCaret] = useState(value.length);

  function commit(next: string, nextCaret: number) {
    onChange(next);
    setCaret(nextCaret);
    requestAnimationFrame(() => ref.current?.setSelectionRange(nextCaret, nextCaret));
    if (next.length === length && next !== value) onComplete?.(next);
  }

  function position(): number {
    const input = ref.current;
    return Math.min(input?.selectionStart ?? value.length, value.length);
  }

  function handleKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.metaKey || event.ctrlKey || event.altKey) return;
    const at = position();
    const effect = decideOtpKey(event.key, value, at, length, (ref.current?.selectionEnd ?? 0) === 0);
    if (effect.type !== 'pass') event.preventDefault();
    if (effect.type === 'edit') commit(effect.value, effect.caret);
    if (effect.type === 'move') moveTo(effect.caret);
  }

  function moveTo(at: number) {
    setCaret(at);
    ref.current?.setSelectionRange(at, at);
  }

  function handlePaste(event: ClipboardEvent<HTMLInputElement>) {
    event.preventDefault();
    const text = event.clipboardData.getData('text').trim();
    if (text.length === 0 || !digitsOnly(text, length)) return;
    commit(text, Math.min(text.length, length));
  }

  const errorId = `${id}-error`;
  const active = Math.min(caret, length - 1);
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <div
        className="otp"
        onMouseUp={(event) => {
          // Clicking a cell puts the caret there.
          const rect = event.currentTarget.getBoundingClientRect();
          if (rect.width === 0) return;
          const cell = Math.floor(((event.clientX - rect.left) / rect.width) * length);
          moveTo(Math.max(0, Math.min(value.length, cell)));
        }}
      >
        <input
          ref={ref}
          id={id}
          className="otp-input"
          type="text"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9]*"
          maxLength={length}
          value={value}
          disabled={disabled}
          autoFocus={autoFocus}
          aria-invalid={errors.length > 0 || undefined}
          aria-describedby={errors.length > 0 ? errorId : undefined}
          onKeyDown={handleKeyDown}
          onPaste={handlePaste}
          onSelect={(e) => setCaret(e.currentTarget.selectionStart ?? value.length)}
          onChange={(e) => {
            // Autofill, IME and mobile keyboards arrive here: accept only all-digit values.
            const next = e.target.value.trim();
            if (digitsOnly(next, length)) commit(next, next.length);
          }}
        />
        {Array.from({ length }, (_, i) => (
          <span key={i} aria-hidden="true" className={`otp-cell${i === active ? ' active' : ''}`}>
            {value[i] ?? ''}
          </span>
        ))}
      </div>
      <FieldErrors id={errorId} errors={errors} />
    </div>
  );
}
