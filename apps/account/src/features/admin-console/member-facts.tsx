import type { MemberDetail } from './console-client.ts';
import { consoleCopy as t } from './copy.ts';
import { selectSignInFacts } from './select-sign-in-facts.ts';
import { formatDate, formatNumber } from './use-load.ts';

/** What the console knows of one member: role, status, sign-in methods, last sign-in, lockout. */
export function MemberFacts({
  member,
  roleManagedByDirectory,
}: {
  member: MemberDetail;
  roleManagedByDirectory: boolean;
}) {
  const signIn = selectSignInFacts(member, { date: formatDate, number: formatNumber });
  return (
    <dl className="console-facts">
      <dt>{t.members.email}</dt>
      <dd>{member.email}</dd>
      <dt>{t.members.role}</dt>
      <dd data-testid="member-role">
        {t.roles[member.role]}
        {roleManagedByDirectory ? (
          <>
            {' '}
            <span className="badge">{t.scim.managedByDirectory}</span>
          </>
        ) : null}
      </dd>
      <dt>{t.members.status}</dt>
      <dd data-testid="member-status">{t.status[member.status]}</dd>
      <dt>{t.member.identityState}</dt>
      <dd>{member.identityState ?? '—'}</dd>
      <dt>{t.member.signInMethods}</dt>
      <dd>{member.signInMethods.join(', ') || '—'}</dd>
      <dt>{t.member.twoFactor}</dt>
      <dd>
        {member.twoFactor === null ? '—' : member.twoFactor ? t.member.twoFactorOn : t.member.twoFactorOff}
      </dd>
      <dt>{t.member.lastSignIn}</dt>
      <dd data-testid="member-last-sign-in">{signIn.lastSignIn}</dd>
      <dt>{t.member.lockout}</dt>
      <dd data-testid="member-lockout">
        {signIn.locked ? <strong>{signIn.lockout}</strong> : signIn.lockout}
      </dd>
      <dt>{t.members.joined}</dt>
      <dd>{formatDate(member.createdAt)}</dd>
    </dl>
  );
}

/** The member's latest security events, newest first. */
export function MemberEvents({ member }: { member: MemberDetail }) {
  return (
    <>
      <h3>{t.member.recentEvents}</h3>
      {member.recentEvents.length === 0 ? <p>{t.empty.events}</p> : null}
      <ul>
        {member.recentEvents.map((e) => (
          <li key={e.id}>
            {formatDate(e.occurredAt)}: {e.type}
            {e.details.method ? ` (${t.member.methods[e.details.method] ?? e.details.method})` : ''}
            {e.ip ? `, ${e.ip}` : ''}
          </li>
        ))}
      </ul>
    </>
  );
}
