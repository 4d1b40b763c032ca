import { useState } from 'react';
import { consoleApi, type MemberDetail, type Role } from './console-client.ts';
import { consoleCopy as t } from './copy.ts';
import type { MemberChange } from './decide-scim.ts';
import { scimFailureMessage } from './scim-notice.tsx';

export type MemberNotice = { text: string; undo?: Role } | { error: string } | null;
type MemberAction = Parameters<typeof consoleApi.memberAction>[2];

/** The changes an admin makes to one member: each runs once, says how it went, and reloads the member. */
export function useMemberChanges(organisationId: string, member: MemberDetail, reload: () => void) {
  const [notice, setNotice] = useState<MemberNotice>(null);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);

  async function run(action: () => Promise<unknown>, done: MemberNotice, kind: MemberChange = 'other') {
    setBusy(true);
    try {
      await action();
      setNotice(done);
      reload();
    } catch (error) {
      // The directory's refusals (a role it took over since the page loaded, a person it removed): in words.
      setNotice({ error: scimFailureMessage(error, kind) });
      reload();
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  }

  const changeRole = (to: Role, undo: boolean) =>
    run(
      () => consoleApi.changeRole(organisationId, member.id, to),
      undo
        ? { text: t.member.undone }
        : { text: t.member.roleChanged(t.roles[member.role], t.roles[to]), undo: member.role },
      'role',
    );

  const act = (action: MemberAction, text: string, kind?: MemberChange) =>
    run(() => consoleApi.memberAction(organisationId, member.id, action), { text }, kind);

  return { notice, busy, confirming, setConfirming, changeRole, act };
}

export type MemberChanges = ReturnType<typeof useMemberChanges>;
