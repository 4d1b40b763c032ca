import { useState } from 'react';
import { HttpError } from '../../shared/errors/http-error.ts';
import { consoleApi, type Me } from './console-client.ts';
import { consoleCopy as t } from './copy.ts';
import { decideSelfSignUpFailure, selectSelfSignUpView } from './decide-self-sign-up.ts';
import { failure, useLoad } from './use-load.ts';
import { Loadable } from './loadable.tsx';
import { NoticeLine, type Notice } from './token-list.tsx';

/**
 * Sign-up (ManageOrganisationSettings): the organisation's self sign-up for its domains. The switch
 * saves at once (it is reversible) and says what was saved; an organisation that enforces SSO is told
 * why it can not open it.
 */
export function SignUpSection({ me }: { me: Me }) {
  const [current, reload] = useLoad('self-signup', () => consoleApi.selfSignUp(me.organisationId));
  const [notice, setNotice] = useState<Notice>(null);
  const [busy, setBusy] = useState(false);

  async function save(enabled: boolean) {
    setBusy(true);
    setNotice({ text: t.signup.saving });
    try {
      const saved = await consoleApi.setSelfSignUp(me.organisationId, { enabled });
      setNotice({ text: t.signup.saved(saved.enabled) });
      reload();
    } catch (error) {
      setNotice({
        error: decideSelfSignUpFailure({
          ...failure(error),
          body: error instanceof HttpError ? error.body : null,
        }),
      });
      reload();
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="signup-title">
      <h2 id="signup-title">{t.sections.signup}</h2>
      <p>{t.signup.intro}</p>
      <Loadable loaded={current}>
        {(signup) => {
          const view = selectSelfSignUpView(signup);
          return (
            <>
              <h3>{t.signup.domains}</h3>
              {signup.domains.length === 0 ? (
                <p>{t.signup.noDomains}</p>
              ) : (
                <ul data-testid="signup-domains">
                  {signup.domains.map((domain) => (
                    <li key={domain}>{domain}</li>
                  ))}
                </ul>
              )}
              <div className="checkbox">
                <input
                  id="self-signup-switch"
                  type="checkbox"
                  role="switch"
                  checked={view.checked}
                  disabled={busy || view.disabled}
                  aria-describedby={view.explanation ? 'self-signup-blocked' : 'self-signup-state'}
                  onChange={(e) => void save(e.target.checked)}
                />
                <label htmlFor="self-signup-switch">{t.signup.switchLabel}</label>
              </div>
              <p id="self-signup-state">{view.state}</p>
              {view.explanation ? (
                <p id="self-signup-blocked" className="notice">
                  {view.explanation}
                </p>
              ) : null}
            </>
          );
        }}
      </Loadable>
      <NoticeLine notice={notice} />
    </section>
  );
}
