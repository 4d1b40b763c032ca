import type { ReactNode } from 'react';
import { useId } from 'react';

/** A labelled checkbox; `children` is the label (it may hold a link). */
export function Checkbox({
  checked,
  onChange,
  required,
  children,
}: {
  checked: boolean;
  onChange: (checked: boolean) => void;
  required?: boolean;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <div className="checkbox">
      <input
        id={id}
        type="checkbox"
        checked={checked}
        onChange={(e) => onChange(e.target.checked)}
        required={required}
      />
      <label htmlFor={id}>{children}</label>
    </div>
  );
}
