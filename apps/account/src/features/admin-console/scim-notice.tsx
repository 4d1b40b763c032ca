import { HttpError } from '../../shared/errors/http-error.ts';
import { decideScimFailure, type MemberChange } from './decide-scim.ts';
import { failure } from './use-load.ts';

// The Provisioning (SCIM) section's notices: what a refused call says (the line itself: ./token-list.tsx).

/** A refused call of this section as the message the admin reads. */
export function scimFailureMessage(error: unknown, change: MemberChange = 'other'): string {
  return decideScimFailure(
    { ...failure(error), body: error instanceof HttpError ? error.body : null },
    change,
  );
}
