import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TEAMS_HOST_PATH } from '@acme/system-shape';
import { escapeHtml } from '../html.ts';

/**
 * A Microsoft Teams host page for development and tests. teams-js accepts host messages only from
 * https origins it knows or from the app's own origin, so the page is served from the app's origin
 * (MAGIC) by the app server, under {@link TEAMS_HOST_PATH}, and only when the stand-ins run.
 *
 * It embeds `<appPath>` (MAGIC's `/account/m365-login?isTeams=1`) in an iframe and answers the
 * teams-js host protocol by postMessage: `initialize`, `getContext`, `authentication.getAuthToken`.
 * Query parameters: `user=<email>` (the signed-in Teams user; default the first demo user),
 * `fail=<reason>` (getAuthToken answers `[false, reason]`) and `app=<path>` (another page of the app to
 * embed, e.g. `/` for the sign-in of someone who is not a Microsoft 365 user; same origin only).
 */
export { TEAMS_HOST_PATH };

/** Failure reasons the page can make getAuthToken answer with (Teams' own strings). */
export const TEAMS_AUTH_FAILURES = [
  'resourceRequiresConsent',
  'CancelledByUser',
  'FailedToOpenWindow',
  'tokenRevoked',
  'resourceDisabled',
] as const;

export interface TeamsHostOptions {
  /** Entra stand-in base URL (its `/_dev/directory` and `/_dev/teams-token`). */
  entraUrl: string;
  /** Our application's Entra client id: the audience of the SSO token. */
  clientId: string;
  /** Path (and query) of the app page to embed. */
  appPath?: string;
  /** Default Teams user. */
  defaultUser?: string;
}

const SCRIPT = `
(function () {
  'use strict';
  var cfg = JSON.parse(document.getElementById('host-config').textContent);
  var frame = document.getElementById('app');
  var log = document.getElementById('calls');
  var userSelect = document.getElementById('user');
  var failSelect = document.getElementById('fail');
  var people = [];

  function note(text) {
    var li = document.createElement('li');
    li.textContent = text;
    log.appendChild(li);
  }
  function selected() {
    for (var i = 0; i < people.length; i++) if (people[i].email === userSelect.value) return people[i];
    return null;
  }
  function answer(source, request, args) {
    source.postMessage({ id: request.id, uuidAsString: request.uuidAsString, args: args }, location.origin);
  }
  function context(person) {
    return {
      locale: 'en-gb', theme: 'default', entityId: 'magic', subEntityId: '',
      userObjectId: person ? person.objectId : '', userPrincipalName: person ? person.email : '',
      loginHint: person ? person.email : '', userDisplayName: person ? person.displayName : '',
      tid: person ? person.tenantId : '', hostClientType: 'web', frameContext: 'content',
      hostName: 'Teams', appSessionId: cfg.session, sessionId: cfg.session, userLicenseType: 'Unknown',
      isFullScreen: false, teamsTheme: 'default'
    };
  }
  var runtime = JSON.stringify({
    apiVersion: 4,
    hostVersionsInfo: { adaptiveCardSchemaVersion: { majorVersion: 1, minorVersion: 5 } },
    isLegacyTeams: false,
    supports: {
      appInitialization: {}, authentication: {}, pages: { appButton: {}, tabs: {}, config: {}, backStack: {} },
      teamsCore: {}, logs: {}, dialog: { url: {}, update: {} }
    }
  });

  window.addEventListener('message', function (event) {
    if (event.source !== frame.contentWindow || event.origin !== location.origin) return;
    var request = event.data;
    if (!request || typeof request !== 'object' || typeof request.func !== 'string') return;
    note(request.func);
    switch (request.func) {
      case 'initialize':
        answer(event.source, request, ['content', 'web', runtime, '2.30.0']);
        break;
      case 'getContext':
        answer(event.source, request, [context(selected())]);
        break;
      case 'authentication.getAuthToken': {
        var reason = failSelect.value;
        if (reason) { answer(event.source, request, [false, reason]); break; }
        var person = selected();
        if (!person) { answer(event.source, request, [false, 'resourceDisabled']); break; }
        fetch(cfg.entraUrl + '/_dev/teams-token', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ clientId: cfg.clientId, email: person.email })
        }).then(function (r) { return r.json(); }).then(function (body) {
          if (body && typeof body.token === 'string') answer(event.source, request, [true, body.token]);
          else answer(event.source, request, [false, (body && body.error) || 'resourceDisabled']);
        }, function () { answer(event.source, request, [false, 'FailedToOpenWindow']); });
        break;
      }
      default:
        break;
    }
  });

  function load() {
    var params = new URLSearchParams(location.search);
    params.set('user', userSelect.value);
    if (failSelect.value) params.set('fail', failSelect.value); else params.delete('fail');
    history.replaceState(null, '', location.pathname + '?' + params.toString());
    log.textContent = '';
    frame.src = cfg.appPath;
  }
  userSelect.addEventListener('change', load);
  document.getElementById('reload').addEventListener('click', load);

  fetch(cfg.entraUrl + '/_dev/directory').then(function (r) { return r.json(); }).then(function (dir) {
    dir.tenants.forEach(function (t) {
      t.users.forEach(function (u) {
        people.push({ email: u.email, objectId: u.objectId, displayName: u.displayName, tenantId: t.tenantId });
        var option = document.createElement('option');
        option.value = u.email;
        option.textContent = u.displayName + ' <' + u.email + '> (' + t.displayName + ')';
        userSelect.appendChild(option);
      });
    });
    var wanted = new URLSearchParams(location.search).get('user') || cfg.defaultUser;
    if (wanted) userSelect.value = wanted;
    frame.src = cfg.appPath;
  }, function () { note('The Entra stand-in is not reachable.'); });
})();
`;

/** An `app=` path of the app's own origin (a path, never another origin, `//host` or `/\\host`). */
function embeddedPath(value: string | null): string | null {
  if (!value || !value.startsWith('/') || value.startsWith('//') || /[\\\s]/.test(value)) return null;
  return value;
}

/**
 * A handler for the app server: answers the host page and its script, returns false for every
 * other path.
 */
export function teamsHostHandler(options: TeamsHostOptions) {
  const appPath = options.appPath ?? '/account/m365-login?isTeams=1';
  const entraOrigin = new URL(options.entraUrl).origin;
  const headers = (type: string) => ({
    'Content-Type': type,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  });
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === `${TEAMS_HOST_PATH}/host.js`) {
      res.writeHead(200, headers('text/javascript; charset=utf-8'));
      res.end(SCRIPT);
      return true;
    }
    if (url.pathname !== TEAMS_HOST_PATH && url.pathname !== `${TEAMS_HOST_PATH}/`) return false;
    const fail = url.searchParams.get('fail') ?? '';
    const config = JSON.stringify({
      entraUrl: options.entraUrl.replace(/\/+$/, ''),
      clientId: options.clientId,
      appPath: embeddedPath(url.searchParams.get('app')) ?? appPath,
      defaultUser: options.defaultUser ?? '',
      session: randomBytes(8).toString('hex'),
    }).replace(/</g, '\\u003c');
    const failOptions = ['', ...TEAMS_AUTH_FAILURES]
      .map(
        (reason) =>
          `<option value="${escapeHtml(reason)}"${reason === fail ? ' selected' : ''}>${reason ? escapeHtml(reason) : 'succeed'}</option>`,
      )
      .join('');
    res.writeHead(200, {
      ...headers('text/html; charset=utf-8'),
      'Content-Security-Policy': [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'unsafe-inline'",
        `connect-src ${entraOrigin}`,
        // The app frame signs in through the authorization server's and the identity service's
        // redirects, as a tab in Teams does (its app domains): any origin, not only MAGIC's.
        "frame-src 'self' http: https:",
        "frame-ancestors 'none'",
        "base-uri 'none'",
      ].join('; '),
    });
    res.end(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Microsoft Teams (development host)</title>
<style>
body{margin:0;font-family:system-ui,"Segoe UI",sans-serif;display:grid;grid-template-columns:280px 1fr;height:100vh}
aside{background:#292929;color:#fff;padding:16px;overflow:auto}
aside label{display:block;margin:12px 0 4px}
aside select,aside button{width:100%;padding:4px}
iframe{border:0;width:100%;height:100%}
ol{font-size:12px;padding-left:18px}
</style>
</head>
<body>
<aside>
<h1 style="font-size:16px">Teams (development host)</h1>
<label for="user">Signed-in Teams user</label>
<select id="user"></select>
<label for="fail">getAuthToken</label>
<select id="fail">${failOptions}</select>
<button id="reload" type="button" style="margin-top:12px">Reload app</button>
<h2 style="font-size:14px">Host calls</h2>
<ol id="calls"></ol>
</aside>
<main><iframe id="app" title="MAGIC"></iframe></main>
<script type="application/json" id="host-config">${config}</script>
<script src="${TEAMS_HOST_PATH}/host.js"></script>
</body>
</html>
`);
    return true;
  };
}
