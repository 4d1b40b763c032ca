import type { UiText } from '@ory/client';
import { createCatalogue, type MessageValues } from '@acme/i18n/catalogue';
import type { Locale } from '@acme/i18n';
import { de } from './messages.de.ts';
import { en } from './messages.en.ts';

/** What a key's labels carry: its name, when it was added and last used. */
interface KeyLabel {
  display_name: string;
  added_at: string;
  last_used_at: string | null;
}

/** The flow messages' catalogue (English and its translations). */
export const catalogue = createCatalogue(en, { de });
export type MessageKey = keyof typeof en;

/**
 * Where a built message keeps what it was made of, so that the text can be drawn again in the
 * reader's locale (`localiseMessages`). It is stored with the flow and never leaves the service.
 */
const I18N_FIELD = 'i18n';
interface Localisable {
  key: MessageKey;
  values?: MessageValues;
}

/**
 * A Kratos UI message (`text/id.go`, `text/message_*.go`): its id, its English text and its context,
 * as Kratos sends them; plus the catalogue key and values it was made of.
 */
function build(
  type: UiText['type'],
  id: number,
  key: MessageKey,
  values?: MessageValues,
  context?: Record<string, unknown>,
): UiText {
  const made: Localisable = values ? { key, values } : { key };
  return {
    id,
    text: catalogue.t('en', key, values),
    type,
    ...(context ? { context } : {}),
    [I18N_FIELD]: made,
  } as UiText;
}
const info = (id: number, key: MessageKey, values?: MessageValues, context?: Record<string, unknown>) =>
  build('info', id, key, values, context);
const error = (id: number, key: MessageKey, values?: MessageValues, context?: Record<string, unknown>) =>
  build('error', id, key, values, context);
const success = (id: number, key: MessageKey, values?: MessageValues, context?: Record<string, unknown>) =>
  build('success', id, key, values, context);

/** Minutes since `expiredAt`, and the context Kratos gives an expiry message. */
const since = (expiredAt: Date, now: Date) => ({ minutes: (now.getTime() - expiredAt.getTime()) / 60_000 });
const expiredContext = (expiredAt: Date) => ({ expired_at_unix: Math.floor(expiredAt.getTime() / 1000) });

export const messages = {
  loginSignIn: () => info(1010001, 'loginSignIn'),
  loginReauth: () => info(1010003, 'loginReauth'),
  loginMfa: () => info(1010004, 'loginMfa'),
  loginWithPassword: () => info(1010022, 'loginWithPassword'),
  labelPassword: () => info(1070001, 'labelPassword'),
  labelId: () => info(1070004, 'labelId'),
  labelEmail: () => info(1070007, 'labelEmail'),
  /**
   * A refusal with its own key (4000001, its English text as context `reason`, as Kratos's): single
   * sign-on refusals, a body that does not decode, the profile method's trait checks.
   */
  refusal: (key: MessageKey, values?: MessageValues) => reasoned(key, values),
  /**
   * A refusal another part of the system words in English (the user service's refusal of a single
   * sign-on member, the body decoder's reasons): its own key when the catalogue knows the text, else
   * the generic fallback, shown as given in every locale (4000001 `{reason}`). The fallback is for a
   * text nothing is known to send, so that such a text is still shown rather than lost.
   */
  refusalText: (text: string) => {
    const key = KNOWN_TEXTS.get(text);
    return key ? reasoned(key) : error(4000001, 'generic', { reason: text }, { reason: text });
  },
  required: (property: string) => error(4000002, 'required', { property }, { property }),
  passwordTooLong: (max: number) =>
    error(4000005, 'passwordTooLong', { max }, { reason: `it is longer than ${max} bytes` }),
  passwordNoNumber: () =>
    error(4000005, 'passwordNoNumber', undefined, { reason: 'it does not contain a number' }),
  passwordNoSpecial: () =>
    error(4000005, 'passwordNoSpecial', undefined, { reason: 'it does not contain a special character' }),
  passwordRefused: () =>
    error(4000005, 'passwordRefused', undefined, { reason: 'the identity service refused it' }),
  invalidCredentials: () => error(4000006, 'invalidCredentials'),
  passwordTooShort: (min: number, actual: number) =>
    error(4000032, 'passwordTooShort', { min, actual }, { min_length: min, actual_length: actual }),
  passwordTooSimilar: () => error(4000031, 'passwordTooSimilar'),
  passwordBreached: () => error(4000034, 'passwordBreached'),
  /** Not in Kratos: the address's organisation signs in through its SSO provider only (password sign-in and recovery refused). */
  ssoEnforced: () => error(4010090, 'ssoEnforced'),
  /**
   * Not in Kratos: on a settings flow, why a member of an organisation that enforces SSO is offered
   * no new address, password or passkey (its break-glass admin is).
   */
  ssoManaged: () => info(4010093, 'ssoManaged'),
  /** Not in Kratos: the organisation allows sign-in only from its trusted networks (issue 24). */
  networkNotTrusted: () => error(4010091, 'networkNotTrusted'),
  /**
   * Not in Kratos: the authorization server remembered a login for this browser whose identity has
   * been deactivated since (console or directory); it asks for a login again, and the flow says why.
   */
  accountDeactivated: () => error(4010092, 'accountDeactivated'),
  noLoginStrategy: () => error(4010002, 'noLoginStrategy'),
  loginExpired: (expiredAt: Date, now: Date) =>
    error(4010001, 'loginExpired', since(expiredAt, now), {
      expired_at: expiredAt.toISOString(),
      ...expiredContext(expiredAt),
    }),
  registrationSignUp: () => info(1040001, 'registrationSignUp'),
  labelTrait: (title: 'First name' | 'Last name') =>
    info(1070002, title === 'First name' ? 'labelFirstName' : 'labelLastName', undefined, { title }),
  duplicateAccount: () => error(4000007, 'duplicateAccount'),
  /** Kratos's `require_verified_address` refusal: a sign-in before the address was proven by its code. */
  addressNotVerified: () => error(4000010, 'addressNotVerified'),
  invalidEmail: (value: string, max = 64) =>
    error(
      4000001,
      'invalidEmail',
      { value: value.slice(0, max) },
      { reason: `"${value.slice(0, max)}" is not valid "email"` },
    ),
  /**
   * Not in Kratos: self sign-up is open only for the domains of organisations that turned it on. One
   * text for every other address (unknown domain, sign-up off, SSO enforced), naming no organisation.
   */
  signUpNotOpen: () => error(4040090, 'signUpNotOpen'),
  registrationExpired: (expiredAt: Date, now: Date) =>
    error(4040001, 'registrationExpired', since(expiredAt, now), expiredContext(expiredAt)),
  noRegistrationStrategy: () => reasoned('noRegistrationStrategy'),
  saved: () => success(1050001, 'saved'),
  authCode: () => info(1010006, 'authCode'),
  useAuthenticator: () => info(1010009, 'useAuthenticator'),
  unlinkTotp: () => info(1050004, 'unlinkTotp'),
  totpQr: () => info(1050005, 'totpQr'),
  totpSecret: (secret: string) => info(1050006, 'secret', { secret }, { secret }),
  totpSecretLabel: () => info(1050017, 'totpSecretLabel'),
  save: () => info(1070003, 'save'),
  verifyCode: () => info(1070006, 'verifyCode'),
  resendCode: () => info(1070008, 'resendCode'),
  continue: () => info(1070009, 'continue'),
  recoveryCode: () => info(1070010, 'recoveryCode'),
  verificationCode: () => info(1070011, 'verificationCode'),
  invalidTotp: () => error(4000008, 'invalidTotp'),
  tooManyAttempts: () => reasoned('tooManyAttempts'),
  codeLocked: () => reasoned('codeLocked'),
  /**
   * The per-IP code budget is spent: many people may share the address (a company's NAT), so the
   * text names the network, not the account, and says when to try again.
   */
  codeNetworkLocked: (retryAfterSec = 3600) =>
    reasoned('codeNetworkLocked', { minutes: Math.max(1, Math.ceil(retryAfterSec / 60)) }),
  totpLocked: () => reasoned('totpLocked'),
  noTotp: () => error(4000011, 'noTotp'),
  lookupUsed: () => error(4000012, 'lookupUsed'),
  noLookup: () => error(4000014, 'noLookup'),
  lookupInvalid: () => error(4000016, 'lookupInvalid'),
  lookupLabel: () => info(1010007, 'lookupLabel'),
  useLookup: () => info(1010010, 'useLookup'),
  revealLookup: () => info(1050007, 'revealLookup'),
  regenerateLookup: () => info(1050008, 'regenerateLookup'),
  lookupSecret: (secret: string) => info(1050009, 'secret', { secret }, { secret }),
  confirmLookup: () => info(1050010, 'confirmLookup'),
  lookupList: (secrets: string[]) =>
    info(
      1050015,
      'lookupList',
      { secrets: secrets.join(', ') },
      { secrets: secrets.map((s) => ({ id: 1050009, text: s, type: 'info' })) },
    ),
  disableLookup: () => info(1050016, 'disableLookup'),
  /**
   * Ours (not Kratos's): codes are stored hashed, so "reveal" can only say how many are left. Each
   * code is shown once, in the answer that makes it.
   */
  lookupRemaining: (remaining: number, total: number) =>
    info(1050022, 'lookupRemaining', { remaining, total }, { remaining, total }),
  /** WebAuthn (Kratos ids where Kratos has one; 1050023–1050025 are ours: naming and renaming keys). */
  useSecurityKey: () => info(1010008, 'useSecurityKey'),
  passkeyLogin: () => info(1010021, 'passkeyLogin'),
  addSecurityKey: () => info(1050012, 'addSecurityKey'),
  securityKeyName: () => info(1050013, 'securityKeyName'),
  removeSecurityKey: (key: KeyLabel) => keyed(1050018, 'removeSecurityKey', key),
  addPasskey: () => info(1050019, 'addPasskey'),
  removePasskey: (key: KeyLabel) => keyed(1050020, 'removePasskey', key),
  passkeyName: () => info(1050023, 'passkeyName'),
  renamePasskey: (key: KeyLabel) => keyed(1050024, 'renamePasskey', key),
  renameSecurityKey: (key: KeyLabel) => keyed(1050025, 'renameSecurityKey', key),
  noWebAuthn: () => error(4000013, 'noWebAuthn'),
  webauthnUnreadable: () => reasoned('webauthnUnreadable'),
  webauthnInvalid: () => reasoned('webauthnInvalid'),
  webauthnExpired: () => reasoned('webauthnExpired'),
  keyNameInvalid: () => reasoned('keyNameInvalid'),
  keyLimit: (max: number) => reasoned('keyLimit', { max }),
  keyExists: () => reasoned('keyExists'),
  recovered: (minutes: number) => success(1060001, 'recovered', { minutes }),
  recoveryCodeSent: () => info(1060003, 'recoveryCodeSent'),
  recoveryInvalidCode: () => error(4060006, 'recoveryInvalidCode'),
  recoveryExpired: (expiredAt: Date, now: Date) =>
    error(4060005, 'recoveryExpired', since(expiredAt, now), expiredContext(expiredAt)),
  verificationCodeSent: () => info(1080003, 'verificationCodeSent'),
  verified: () => success(1080002, 'verified'),
  verificationInvalidCode: () => error(4070006, 'verificationInvalidCode'),
  verificationExpired: (expiredAt: Date, now: Date) =>
    error(4070005, 'verificationExpired', since(expiredAt, now), expiredContext(expiredAt)),
  settingsExpired: (expiredAt: Date, now: Date) =>
    error(4050001, 'settingsExpired', since(expiredAt, now), expiredContext(expiredAt)),
  noSettingsStrategy: () => reasoned('noSettingsStrategy'),
  noRecoveryStrategy: () => reasoned('noRecoveryStrategy'),
  noVerificationStrategy: () => reasoned('noVerificationStrategy'),
  /** A finished recovery or verification flow submitted again. */
  alreadyCompleted: () => reasoned('alreadyCompleted'),
  /** A browser-only method (e.g. a provider's redirect) submitted to an API flow. */
  apiFlowUnsupported: (method: string) => reasoned('apiFlowUnsupported', { method }),
  /** A session from the organisation's provider gets its assurance there: no second factor here. */
  ssoNoMfa: () => reasoned('ssoNoMfa'),
  totpAlreadySet: () => reasoned('totpAlreadySet'),
  nameTooLong: (max: number) => reasoned('nameTooLong', { max }),
  /** A trait the user service manages, changed through the profile method. */
  managedTrait: (path: string) => reasoned('managedTrait', { path }),
};

/** Refusals that reach the service as English text, by that text (`messages.refusalText`). */
const KNOWN_TEXTS = new Map<string, MessageKey>(
  (
    [
      'memberOtherOrganisation',
      'memberDomainMismatch',
      'memberExists',
      'memberDirectoryCreates',
      'memberNoJit',
      'memberUnknownProvider',
      'memberInvalidProvider',
      'bodyNotJson',
      'bodyNotObject',
      'bodyReservedKey',
      'bodyUnstorableText',
    ] as const
  ).map((key) => [catalogue.t('en', key), key]),
);

/** A 4000001 message whose context repeats its English text as `reason` (as Kratos's do). */
function reasoned(key: MessageKey, values?: MessageValues): UiText {
  return error(4000001, key, values, { reason: catalogue.t('en', key, values) });
}

/** A message about one key, naming it, with the key's labels as context. */
function keyed(id: number, key: MessageKey, label: KeyLabel): UiText {
  return info(id, key, { name: label.display_name }, { ...label });
}

/**
 * Draws every built message inside `value` (a response body) in `locale`, and drops what it was made
 * of. Messages of other origins are left as they are. Returns `value` itself when nothing changed.
 */
export function localiseMessages<T>(value: T, locale: Locale): T {
  return walk(value, locale) as T;
}

function walk(value: unknown, locale: Locale): unknown {
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const w = walk(v, locale);
      if (w !== v) changed = true;
      return w;
    });
    return changed ? out : value;
  }
  if (!isPlainObject(value)) return value;
  const made = value[I18N_FIELD];
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === I18N_FIELD && isLocalisable(made)) {
      changed = true;
      continue;
    }
    const w = walk(v, locale);
    if (w !== v) changed = true;
    out[k] = w;
  }
  if (isLocalisable(made) && typeof value.text === 'string' && locale !== 'en')
    out.text = catalogue.t(locale, made.key, made.values);
  return changed ? out : value;
}

/** Whether `value` holds a built message (a quick look before the locale is worked out). */
export function holdsMessages(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsMessages);
  if (!isPlainObject(value)) return false;
  if (isLocalisable(value[I18N_FIELD])) return true;
  return Object.values(value).some(holdsMessages);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function isLocalisable(value: unknown): value is Localisable {
  return isPlainObject(value) && typeof value.key === 'string' && Object.hasOwn(en, value.key);
}
