import type { FormEvent, ReactNode } from 'react';
import { useState } from 'react';
import { copy } from '../../copy.ts';
import { formatDateTime } from '../../i18n/format.ts';
import { paths, type SettingsSectionId } from '../../shared/config/paths.ts';
import { AppShell } from '../../shared/shell/app-shell.tsx';
import { NewPasswordForm } from '../../shared/password/new-password-form.tsx';
import { BackupCodesList } from '../../shared/totp/backup-codes-list.tsx';
import { FormErrors } from '../../shared/ui/form-errors.tsx';
import { Progress } from '../../shared/ui/progress.tsx';
import { TextField } from '../../shared/ui/text-field.tsx';
import { ErrorView } from '../../shared/ui/error-view.tsx';
import { KeysSection, type KeysModel } from './keys/keys-section.tsx';
import { LanguageSection } from './language-section.tsx';
import { selectKeys, type KeyType } from './keys/select-keys.ts';
import { selectSettingsOffers } from './select-settings-offers.ts';
import type { SettingsSections } from './select-settings-sections.ts';
import { selectSessionRows } from './select-session-rows.ts';
import { selectTwoFactor } from './select-two-factor.ts';
import type { M365AccountModel } from './use-m365-account.ts';
import type { SettingsModel, SettingsSection } from './use-settings.ts';
import { availableSettingsSections, selectSettingsNav } from './select-settings-nav.ts';
import { connectedAppName } from './select-connected-app-name.ts';

const MICROSOFT_ACCOUNT_URL = 'https://myaccount.microsoft.com/';

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section className="card settings-section" aria-labelledby={`${id}-title`} data-testid={`settings-${id}`}>
      <h2 id={`${id}-title`} className="card-title">
        {title}
      </h2>
      {children}
    </section>
  );
}

/** What the connected-apps section needs: the settings model, or the m365 person's account model. */
type AppsModel = Pick<SettingsModel, 'apps' | 'busy' | 'notice' | 'revokeApp'>;

function Notice({ model, section }: { model: Pick<SettingsModel, 'notice'>; section: SettingsSection }) {
  return model.notice?.section === section ? (
    <p className="notice" role="status">
      {model.notice.text}
    </p>
  ) : null;
}

const when = (iso: string) => (iso ? formatDateTime(iso) : '—');

function ProfileSection({ model }: { model: SettingsModel }) {
  const [first, setFirst] = useState(model.traits.name?.first ?? '');
  const [last, setLast] = useState(model.traits.name?.last ?? '');
  function submit(event: FormEvent) {
    event.preventDefault();
    void model.saveName(first.trim(), last.trim());
  }
  return (
    <Section id="profile" title={copy.settings.profile}>
      <p>
        {copy.settings.email}: <strong data-testid="settings-email">{model.traits.email}</strong>
      </p>
      <form onSubmit={submit} aria-busy={model.busy}>
        <TextField
          label={copy.settings.firstName}
          value={first}
          onChange={(e) => setFirst(e.target.value)}
          autoComplete="given-name"
        />
        <TextField
          label={copy.settings.lastName}
          value={last}
          onChange={(e) => setLast(e.target.value)}
          autoComplete="family-name"
        />
        <FormErrors messages={model.errors.profile.formErrors} />
        <button type="submit" className="button" disabled={model.busy || !first.trim()}>
          {copy.settings.save}
        </button>
      </form>
      <Notice model={model} section="profile" />
    </Section>
  );
}

function PasswordSection({ model, mode }: { model: SettingsModel; mode: SettingsSections['password'] }) {
  if (mode === 'none') return null;
  return (
    <Section id="password" title={copy.settings.password}>
      {mode === 'managed' ? (
        <p>{copy.settings.passwordManaged}</p>
      ) : (
        <>
          <p className="muted">{copy.settings.passwordOthersSignedOut}</p>
          <NewPasswordForm
            changing
            autoFocus={false}
            submitLabel={copy.settings.changePassword}
            busy={model.busy}
            errors={model.errors.password.formErrors}
            fieldErrors={model.errors.password.fieldErrors.password ?? []}
            onSubmit={model.changePassword}
          />
        </>
      )}
      <Notice model={model} section="password" />
    </Section>
  );
}

function BackupCodes({ model }: { model: SettingsModel }) {
  const codes = model.newCodes;
  if (codes.length > 0) {
    return (
      <div data-testid="backup-codes">
        <p>{copy.settings.backupCodesExplain}</p>
        <BackupCodesList codes={codes} />
        <button
          type="button"
          className="button"
          disabled={model.busy}
          onClick={() => void model.confirmBackupCodes()}
        >
          {copy.settings.savedCodes}
        </button>
      </div>
    );
  }
  return null;
}

/** The settings model's actions for one kind of key (the notice and errors show where `shown`). */
function keysModel(model: SettingsModel, type: KeyType, shown: boolean): KeysModel {
  return {
    busy: model.busy,
    formErrors: shown ? model.errors.passkeys.formErrors : [],
    notice: shown && model.notice?.section === 'passkeys' ? model.notice.text : null,
    add: (name, options) => model.addKey(type, name, options),
    rename: (id, name) => model.renameKey(type, id, name),
    remove: (id) => model.removeKey(type, id),
  };
}

/**
 * The security keys (`webauthn`, a second factor) in the Two-factor section; its errors and notices
 * show at the section's end, with those of the authenticator app and backup codes.
 */
function SecurityKeys({ model }: { model: SettingsModel }) {
  return (
    <KeysSection
      view={selectKeys(model.flow, 'webauthn')}
      model={keysModel(model, 'webauthn', false)}
      text={copy.securityKeys}
      testId="security-key"
      frame={(children) => (
        <div data-testid="security-keys">
          <h3 className="subheading">{copy.securityKeys.title}</h3>
          {children}
        </div>
      )}
    />
  );
}

function TwoFactorSection({ model, mode }: { model: SettingsModel; mode: SettingsSections['twoFactor'] }) {
  if (mode === 'none') return null;
  const view = selectTwoFactor(model.flow);
  return (
    <Section id="two-factor" title={copy.settings.twoFactor}>
      {mode === 'managed' ? (
        <p>{copy.settings.twoFactorManaged}</p>
      ) : (
        <>
          <p data-testid="totp-status">{view.totp === 'on' ? copy.settings.totpOn : copy.settings.totpOff}</p>
          {view.totp === 'on' ? (
            <button
              type="button"
              className="button secondary"
              disabled={model.busy}
              onClick={() => void model.resetTotp()}
            >
              {copy.settings.resetTotp}
            </button>
          ) : (
            <a className="button secondary" href={paths.mfaSetup}>
              {copy.settings.setUpTotp}
            </a>
          )}
          {view.canMakeBackupCodes && (
            <>
              <h3 className="subheading">{copy.settings.backupCodes}</h3>
              <p data-testid="backup-codes-left">
                {view.backupCodesLeft === null
                  ? copy.settings.noBackupCodes
                  : copy.settings.backupCodesLeft(view.backupCodesLeft)}
              </p>
              <BackupCodes model={model} />
              {model.newCodes.length === 0 && (
                <button
                  type="button"
                  className="button secondary"
                  disabled={model.busy}
                  onClick={() => void model.makeBackupCodes()}
                >
                  {copy.settings.makeBackupCodes}
                </button>
              )}
            </>
          )}
          <SecurityKeys model={model} />
          <FormErrors messages={model.errors.twoFactor.formErrors} />
        </>
      )}
      <Notice model={model} section="twoFactor" />
    </Section>
  );
}

function SessionsSection({ model, now }: { model: SettingsModel; now: string }) {
  const rows = selectSessionRows(model.current, model.others, now);
  return (
    <Section id="sessions" title={copy.settings.sessions}>
      <ul className="sessions">
        {rows.map((r) => (
          <li key={r.id} data-testid={r.current ? 'session-current' : 'session-other'}>
            <strong>
              {r.browser} · {r.os}
            </strong>
            {r.current && <span className="muted"> — {copy.settings.thisDevice}</span>}
            <dl>
              <dt>{copy.settings.ip}</dt>
              <dd>{r.ip || '—'}</dd>
              <dt>{copy.settings.firstSeen}</dt>
              <dd>{when(r.firstSeen)}</dd>
              <dt>{copy.settings.lastActive}</dt>
              <dd>{when(r.lastActive)}</dd>
            </dl>
            {!r.current && (
              <button
                type="button"
                className="button secondary"
                disabled={model.busy}
                aria-label={`${copy.settings.signOut}: ${r.browser} · ${r.os}, ${r.ip}`}
                onClick={() => void model.signOut(r.id)}
              >
                {copy.settings.signOut}
              </button>
            )}
          </li>
        ))}
      </ul>
      {model.others.length === 0 ? (
        <p className="muted">{copy.settings.noOtherSessions}</p>
      ) : (
        <button
          type="button"
          className="button"
          disabled={model.busy}
          onClick={() => void model.signOutOthers()}
        >
          {copy.settings.signOutOthers}
        </button>
      )}
      <Notice model={model} section="sessions" />
    </Section>
  );
}

function ConnectedAppsSection({ model }: { model: AppsModel }) {
  if (model.apps === null) return null;
  return (
    <Section id="connected-apps" title={copy.settings.connectedApps}>
      {model.apps.length === 0 ? (
        <p className="muted">{copy.settings.noConnectedApps}</p>
      ) : (
        <ul className="sessions">
          {model.apps
            .map((app) => ({ ...app, name: connectedAppName(app) }))
            .map((a) => (
              <li key={a.clientId} data-testid="connected-app">
                <strong>{a.name}</strong>
                <dl>
                  <dt>{copy.settings.granted}</dt>
                  <dd>{when(a.grantedAt)}</dd>
                </dl>
                <button
                  type="button"
                  className="button secondary"
                  disabled={model.busy}
                  aria-label={`${copy.settings.revoke}: ${a.name}`}
                  onClick={() => void model.revokeApp(a.clientId, a.name)}
                >
                  {copy.settings.revoke}
                </button>
              </li>
            ))}
        </ul>
      )}
      <Notice model={model} section="apps" />
    </Section>
  );
}

function LinkedAccountSection({
  model,
  mode,
  connected,
}: {
  model: SettingsModel;
  mode: SettingsSections['linkedAccount'];
  connected: boolean;
}) {
  if (mode === 'none') return null;
  const linked = model.gitConnected ?? connected;
  return (
    <Section id="linked-accounts" title={copy.settings.linkedAccounts}>
      <p data-testid="git-status">{linked ? copy.settings.gitConnected : copy.settings.gitNotConnected}</p>
      {linked && mode === 'replace' && <p className="muted">{copy.settings.replaceExplain}</p>}
      {linked && (
        <button
          type="button"
          className="button secondary"
          disabled={model.busy}
          onClick={() => void model.unlinkGit()}
        >
          {mode === 'replace' ? copy.settings.replace : copy.settings.unlink}
        </button>
      )}
      <Notice model={model} section="linked" />
    </Section>
  );
}

/**
 * A Microsoft 365 person's page (no identity session, so no settings flows): their name, email and
 * organisation, their connected apps (with Revoke), and their Microsoft account, where Microsoft
 * manages how they sign in.
 */
function M365Settings({
  account,
  microsoftAccount,
}: {
  account: M365AccountModel;
  microsoftAccount: boolean;
}) {
  const person = account.account;
  return (
    <main className="page settings">
      <h1 className="card-title">{copy.settings.title}</h1>
      <Section id="microsoft" title={copy.settings.profile}>
        {person && (
          <dl data-testid="m365-person">
            <dt>{copy.settings.name}</dt>
            <dd>{person.name}</dd>
            <dt>{copy.settings.email}</dt>
            <dd>{person.email}</dd>
            <dt>{copy.settings.organisation}</dt>
            <dd>{person.organisation.name}</dd>
          </dl>
        )}
        <p>{copy.settings.microsoftAccount}</p>
        {microsoftAccount && (
          <a className="button secondary" href={MICROSOFT_ACCOUNT_URL} target="_blank" rel="noreferrer">
            {copy.settings.microsoftLink}
          </a>
        )}
      </Section>
      <ConnectedAppsSection model={{ ...account, apps: account.apps }} />
    </main>
  );
}

/** The account page: one card per section that applies to how the person signs in; `only` shows one. */
export function SettingsScreen({
  model,
  sections,
  m365,
  gitConnected,
  now,
  only = null,
}: {
  model: SettingsModel;
  sections: SettingsSections;
  /** The account of a person without an identity session (Microsoft 365). */
  m365: M365AccountModel;
  gitConnected: boolean;
  now: string;
  /** The section of `/account/settings/<section>`; null: every section. */
  only?: SettingsSectionId | null;
}) {
  if (sections.kind === 'm365') {
    return (
      <AppShell>
        <M365Settings account={m365} microsoftAccount={sections.microsoftAccount} />
      </AppShell>
    );
  }
  if (model.loadError) return <ErrorView message={model.loadError} mode="retry" />;
  if (!model.flow) return <Progress label={copy.common.loading} />;
  // What the flow offers decides too: a password form only where the service offers a password.
  const offers = selectSettingsOffers(model.flow);
  const password = sections.password === 'form' && !offers.password ? 'managed' : sections.password;
  const available = availableSettingsSections(sections, password, model.apps !== null);
  const shown = (id: SettingsSectionId) => only === null || only === id;
  return (
    <AppShell nav={selectSettingsNav(available, only)}>
      <main className="page settings">
        <h1 className="card-title">{copy.settings.title}</h1>
        {offers.notices.map((text) => (
          <p key={text} className="notice" role="note" data-testid="settings-flow-notice">
            {text}
          </p>
        ))}
        {shown('profile') && <ProfileSection model={model} />}
        {shown('language') && (
          <LanguageSection
            model={model}
            frame={(children) => (
              <Section id="language" title={copy.settings.language}>
                {children}
                <Notice model={model} section="language" />
              </Section>
            )}
          />
        )}
        {shown('password') && <PasswordSection model={model} mode={password} />}
        {shown('two-factor') && <TwoFactorSection model={model} mode={sections.twoFactor} />}
        {shown('passkeys') && sections.kind === 'identity' && (
          <KeysSection
            view={selectKeys(model.flow, 'passkey')}
            model={keysModel(model, 'passkey', true)}
            text={copy.passkeys}
            testId="passkey"
            frame={(children) => (
              <Section id="passkeys" title={copy.passkeys.title}>
                {children}
              </Section>
            )}
          />
        )}
        {shown('sessions') && sections.sessions && <SessionsSection model={model} now={now} />}
        {shown('connected-apps') && <ConnectedAppsSection model={model} />}
        {shown('linked-accounts') && (
          <LinkedAccountSection model={model} mode={sections.linkedAccount} connected={gitConnected} />
        )}
      </main>
    </AppShell>
  );
}
