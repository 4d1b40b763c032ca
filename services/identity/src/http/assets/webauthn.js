/* global window, document, navigator, btoa, atob */
// Served at /.well-known/ory/webauthn.js (as Kratos serves it): the functions the WebAuthn trigger
// nodes of login and settings flows call. Each asks the browser for a credential with the options the
// flow carries, puts the answer (JSON, base64url fields) into the method's hidden input, and submits
// the form. Applications that use @simplewebauthn/browser (the account app) do not need it.
(function () {
  'use strict';
  var b64 = function (buf) {
    var s = '';
    new Uint8Array(buf).forEach(function (c) {
      s += String.fromCharCode(c);
    });
    return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  };
  var bytes = function (v) {
    var s = atob(v.replace(/-/g, '+').replace(/_/g, '/'));
    return Uint8Array.from(s, function (c) {
      return c.charCodeAt(0);
    });
  };
  var asList = function (list) {
    return (list || []).map(function (c) {
      return Object.assign({}, c, { id: bytes(c.id) });
    });
  };
  var submit = function (field, trigger, value) {
    var input = document.querySelector('*[name="' + field + '"]');
    if (!input) return;
    input.value = JSON.stringify(value);
    var form = input.closest('form');
    var button = document.querySelector('*[name="' + trigger + '"]');
    if (form && form.requestSubmit)
      form.requestSubmit(button && button.type === 'submit' ? button : undefined);
    else if (form) form.submit();
  };
  var answer = function (cred) {
    var r = cred.response;
    var out = {
      id: cred.id,
      rawId: b64(cred.rawId),
      type: cred.type,
      clientExtensionResults: cred.getClientExtensionResults(),
      response: { clientDataJSON: b64(r.clientDataJSON) },
    };
    if (r.attestationObject) {
      out.response.attestationObject = b64(r.attestationObject);
      out.response.transports = r.getTransports ? r.getTransports() : [];
    } else {
      out.response.authenticatorData = b64(r.authenticatorData);
      out.response.signature = b64(r.signature);
      if (r.userHandle) out.response.userHandle = b64(r.userHandle);
    }
    return out;
  };
  var create = function (opt, field, trigger) {
    var pk = Object.assign({}, opt.publicKey, { challenge: bytes(opt.publicKey.challenge) });
    pk.user = Object.assign({}, pk.user, { id: bytes(pk.user.id) });
    pk.excludeCredentials = asList(pk.excludeCredentials);
    return navigator.credentials.create({ publicKey: pk }).then(function (c) {
      submit(field, trigger, answer(c));
    });
  };
  var get = function (opt, field, trigger, mediation) {
    var pk = Object.assign({}, opt.publicKey, { challenge: bytes(opt.publicKey.challenge) });
    pk.allowCredentials = asList(pk.allowCredentials);
    var req = { publicKey: pk };
    if (mediation) req.mediation = mediation;
    return navigator.credentials.get(req).then(function (c) {
      submit(field, trigger, answer(c));
    });
  };
  var fromInput = function (name) {
    var input = document.querySelector('*[name="' + name + '"]');
    return input && input.value ? JSON.parse(input.value) : null;
  };
  window.__oryWebAuthnRegistration = window.oryWebAuthnRegistration = function (opt) {
    return create(opt, 'webauthn_register', 'webauthn_register_trigger');
  };
  window.__oryWebAuthnLogin = window.oryWebAuthnLogin = function (opt) {
    return get(opt, 'webauthn_login', 'webauthn_login_trigger');
  };
  window.oryPasskeyLogin = function () {
    return get(fromInput('passkey_challenge'), 'passkey_login', 'passkey_login_trigger');
  };
  window.oryPasskeyLoginAutocompleteInit = function () {
    return get(fromInput('passkey_challenge'), 'passkey_login', 'passkey_login_trigger', 'conditional');
  };
  window.oryPasskeySettingsRegistration = function () {
    var data = fromInput('passkey_create_data');
    return create(data.credentialOptions, 'passkey_settings_register', 'passkey_register_trigger');
  };
})();
