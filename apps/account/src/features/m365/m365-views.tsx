import type { ReactNode } from 'react';
import { copy } from '../../copy.ts';
import { paths } from '../../shared/config/paths.ts';
import { TermsForm } from '../../shared/terms/terms-form.tsx';
import { AccountFooter } from '../../shared/ui/account-footer.tsx';
import { Card } from '../../shared/ui/card.tsx';
import { DocumentLink } from '../../shared/ui/document-link.tsx';
import type { M365View } from './select-m365-view.ts';

// The m365 login screen's views, one component per mode. Presentational: everything comes from
// use-m365-login.

export interface M365LoginScreenProps {
  view: M365View;
  isTeams: boolean;
  appName: string;
  username: string | null;
  supportEmail: string;
  subscriptionUrl: string | null;
  fatalError: string | null;
  activating: boolean;
  signingIn: boolean;
  signIn(): void;
  activate(): void;
  continueToApp(): void;
  retryTeams(): void;
  openSubscription(url: string): void;
}

const t = copy.m365;

function Frame({
  title,
  supportEmail,
  children,
}: {
  title: string;
  supportEmail: string;
  children: ReactNode;
}) {
  return (
    <Card title={title} footer={<AccountFooter supportEmail={supportEmail} />}>
      {children}
    </Card>
  );
}

function SubscriptionLink(props: M365LoginScreenProps) {
  const url = props.subscriptionUrl;
  if (!url) return null;
  if (props.isTeams) {
    return (
      <button type="button" className="button" onClick={() => props.openSubscription(url)}>
        {t.setUpSubscription}
      </button>
    );
  }
  return (
    <a className="button" href={url} target="_blank" rel="noreferrer">
      {t.setUpSubscription}
    </a>
  );
}

function Login(props: M365LoginScreenProps) {
  return (
    <Frame title={t.loginTitle} supportEmail={props.supportEmail}>
      <p className="muted">{t.loginText(props.appName)}</p>
      <button type="button" className="button" onClick={props.signIn} disabled={props.signingIn}>
        {copy.common.continue}
      </button>
      <p className="notice">
        {t.termsNotice} <DocumentLink href={paths.terms}>{t.termsLink}</DocumentLink> {t.termsAnd}{' '}
        <DocumentLink href={paths.privacy}>{t.privacyLink}</DocumentLink>.
      </p>
    </Frame>
  );
}

function ActivateSubscription(props: M365LoginScreenProps) {
  return (
    <TermsForm
      title={copy.callbackOnboarding.finalStep}
      busy={props.activating || props.signingIn}
      header={
        <>
          {props.username ? (
            <p>
              {t.signingUpAs} <strong data-testid="signing-up-as">{props.username}</strong>
            </p>
          ) : null}
          {props.activating ? (
            <p className="muted" role="status">
              {t.activating}
            </p>
          ) : null}
        </>
      }
      footer={<AccountFooter supportEmail={props.supportEmail} />}
      onAccept={() => props.activate()}
    />
  );
}

function SubscriptionRequired(props: M365LoginScreenProps) {
  return (
    <Frame title={t.notConnectedTitle} supportEmail={props.supportEmail}>
      <p>{t.notConnectedText(props.appName)}</p>
      {props.isTeams ? <p className="muted">{t.notConnectedTeams(props.appName)}</p> : null}
      <p className="muted">{t.notConnectedAdmin}</p>
      <SubscriptionLink {...props} />
      <p>
        <span className="tooltip-anchor">
          <button type="button" className="icon-button" aria-describedby="owner-tooltip">
            {t.whoCanSubscribe}
          </button>
          <span id="owner-tooltip" role="tooltip" className="tooltip">
            {t.ownerTooltip}
          </span>
        </span>
      </p>
    </Frame>
  );
}

function ConsentRequired(props: M365LoginScreenProps) {
  return (
    <Frame title={t.consentTitle} supportEmail={props.supportEmail}>
      <p>{t.consentText(props.appName)}</p>
      <button type="button" className="button" onClick={props.signIn}>
        {t.tryAgain}
      </button>
    </Frame>
  );
}

function UnauthorisedUser(props: M365LoginScreenProps) {
  return (
    <Frame title={t.unauthorisedTitle} supportEmail={props.supportEmail}>
      <p>{t.unauthorisedText(props.appName)}</p>
      {props.isTeams ? null : (
        <button type="button" className="button secondary" onClick={props.signIn}>
          {t.useAnotherAccount}
        </button>
      )}
    </Frame>
  );
}

function Authenticated(props: M365LoginScreenProps) {
  return (
    <Frame title={t.authenticatedTitle} supportEmail={props.supportEmail}>
      <button type="button" className="button" onClick={props.continueToApp}>
        {t.continueTo(props.appName)}
      </button>
    </Frame>
  );
}

function AlreadySubscribed(props: M365LoginScreenProps) {
  return (
    <Frame title={t.alreadySubscribedTitle} supportEmail={props.supportEmail}>
      <p>{t.alreadySubscribedText}</p>
      <a className="button" href={`mailto:${props.supportEmail}`}>
        {copy.common.contactSupport}
      </a>
    </Frame>
  );
}

function Failed(props: M365LoginScreenProps) {
  return (
    <Frame title={t.errorTitle} supportEmail={props.supportEmail}>
      <div className="error-box" role="alert">
        <p>{props.fatalError ?? copy.errors.unknown}</p>
      </div>
      <p className="muted">{copy.errorPage.persist}</p>
      <button
        type="button"
        className="button"
        onClick={props.isTeams ? props.retryTeams : () => window.location.reload()}
      >
        {copy.errorPage.retry}
      </button>
    </Frame>
  );
}

/** The component of each mode but `loading` (the screen shows progress then). */
export const M365_VIEWS: Record<Exclude<M365View, 'loading'>, (props: M365LoginScreenProps) => ReactNode> = {
  login: Login,
  'activate-subscription': ActivateSubscription,
  'subscription-required': SubscriptionRequired,
  'consent-required': ConsentRequired,
  'unauthorised-user': UnauthorisedUser,
  authenticated: Authenticated,
  'already-subscribed': AlreadySubscribed,
  error: Failed,
};
