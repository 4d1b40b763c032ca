import { HttpError } from '../../shared/errors/http-error.ts';
import { consoleCopy } from './copy.ts';
import { decideScimFailure, type MemberChange } from './decide-scim.ts';
import { failure } from './use-load.ts';

// The Provisioning (SCIM) section's notices: one status or alert line, and what a refused call says.

const t = consoleCopy.scim;

export type Notice = { text: string } | { error: string } | null;

/** A refused call of this section as the message the admin reads. */
export function scimFailureMessage(error: unknown, change: MemberChange = 'other'): string {
  return decideScimFailure(
    { ...failure(error), body: error instanceof HttpError ? error.body : null },
    change,
  );
}

/** Copies `value`; answers the notice to show (the clipboard may be refused). */
export async function copyText(value: string, copied: string): Promise<Notice> {
  try {
    await navigator.clipboard.writeText(value);
    return { text: copied };
  } catch {
    return { error: t.copyFailed };
  }
}

export function NoticeLine({ notice }: { notice: Notice }) {
  if (notice && 'text' in notice) {
    return (
      <p role="status" className="notice">
        {notice.text}
      </p>
    );
  }
  return notice ? <p role="alert">{notice.error}</p> : null;
}
