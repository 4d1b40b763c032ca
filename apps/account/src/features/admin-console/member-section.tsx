import { CONSOLE_PATHS } from '../../shared/config/paths.ts';
import { Link } from '../../shared/ui/link.tsx';
import { consoleApi, type Me, type MemberDetail } from './console-client.ts';
import { consoleCopy as t } from './copy.ts';
import { decideMemberActions } from './decide-member-actions.ts';
import { Loadable } from './loadable.tsx';
import { ConfirmDeactivate, MemberButtons, MemberNoticeLine, MemberRoleForm } from './member-actions.tsx';
import { MemberEvents, MemberFacts } from './member-facts.tsx';
import { useLoad } from './use-load.ts';
import { useMemberChanges } from './use-member-changes.ts';

/** One member's page in the console: loads the member, then shows it. */
export function MemberSection({ me, userId }: { me: Me; userId: string }) {
  const [detail, reload] = useLoad(userId, () => consoleApi.member(me.organisationId, userId));
  return (
    <Loadable loaded={detail}>{(member) => <MemberPage me={me} member={member} reload={reload} />}</Loadable>
  );
}

/** The member's facts, what this admin may change, and their recent events. */
function MemberPage({ me, member, reload }: { me: Me; member: MemberDetail; reload: () => void }) {
  const changes = useMemberChanges(me.organisationId, member, reload);
  const actions = decideMemberActions(me, member);
  const name = `${member.firstName} ${member.lastName}`;
  return (
    <section aria-labelledby="member-title">
      <p>
        <Link href={CONSOLE_PATHS.members}>{t.member.back}</Link>
      </p>
      <h2 id="member-title">{name}</h2>
      <MemberFacts member={member} roleManagedByDirectory={actions.roleManagedByDirectory} />
      <MemberNoticeLine changes={changes} />
      {actions.note === 'self' ? <p className="muted">{t.member.self}</p> : null}
      {actions.note === 'protected' ? <p className="muted">{t.member.protected}</p> : null}
      {actions.roleManagedByDirectory ? <p className="muted">{t.scim.managedNote}</p> : null}
      <MemberRoleForm member={member} actions={actions} changes={changes} />
      <MemberButtons actions={actions} changes={changes} />
      <ConfirmDeactivate name={name} changes={changes} />
      <MemberEvents member={member} />
    </section>
  );
}
