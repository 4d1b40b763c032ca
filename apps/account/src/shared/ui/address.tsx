import type { ReactNode } from 'react';

/** An email address that may break at any character (`.address`), as in a table's cell. */
export function Address({ children }: { children: string }) {
  return <span className="address">{children}</span>;
}

/**
 * A message naming an email address, with the address in a span that may break at any character
 * (`.address`): a long address fits a phone's width, the message's words still break only between words.
 */
export function withAddress(message: (address: string) => string, address: string): ReactNode {
  const text = message(address);
  const at = text.indexOf(address);
  if (at < 0) return text;
  return (
    <>
      {text.slice(0, at)}
      <span className="address">{address}</span>
      {text.slice(at + address.length)}
    </>
  );
}
