import type { Translation } from '@acme/i18n/catalogue';
import type { en } from './messages.en.ts';

/** The identity service's flow messages in German (Sie-form); exactly the English keys. */
export const de = {
  loginSignIn: 'Anmelden',
  loginReauth: 'Bitte bestätigen Sie diese Aktion, indem Sie nachweisen, dass Sie es sind.',
  loginMfa: 'Bitte schließen Sie den zweiten Schritt der Anmeldung ab.',
  loginWithPassword: 'Mit Passwort anmelden',
  labelPassword: 'Passwort',
  labelId: 'ID',
  labelEmail: 'E-Mail-Adresse',
  labelFirstName: 'Vorname',
  labelLastName: 'Nachname',
  generic: '{reason}',
  required: 'Die Angabe {property} fehlt.',
  passwordTooLong: 'Das Passwort kann nicht verwendet werden, weil es länger als {max} Byte ist.',
  passwordNoNumber: 'Das Passwort kann nicht verwendet werden, weil es keine Ziffer enthält.',
  passwordNoSpecial: 'Das Passwort kann nicht verwendet werden, weil es kein Sonderzeichen enthält.',
  passwordRefused: 'Das Passwort kann nicht verwendet werden, weil der Identitätsdienst es abgelehnt hat.',
  invalidCredentials:
    'Die Anmeldedaten sind ungültig. Bitte prüfen Sie Passwort, Benutzername, E-Mail-Adresse oder Telefonnummer auf Tippfehler.',
  passwordTooShort: 'Das Passwort muss mindestens {min} Zeichen lang sein, hat aber nur {actual}.',
  passwordTooSimilar: 'Das Passwort kann nicht verwendet werden, weil es der Kennung zu ähnlich ist.',
  passwordBreached: 'Das Passwort ist in Datenlecks aufgetaucht und darf nicht mehr verwendet werden.',
  ssoEnforced:
    'Ihre Organisation verlangt Single Sign-on (SSO). Melden Sie sich über den Identitätsanbieter Ihrer Organisation an: Für diese Adresse kann kein Passwort verwendet oder zurückgesetzt werden.',
  ssoManaged:
    'Ihre Organisation verlangt Single Sign-on (SSO). Sie melden sich über den Identitätsanbieter Ihrer Organisation an, daher können Ihre E-Mail-Adresse, Ihr Passwort und Ihre Passkeys hier nicht geändert werden.',
  networkNotTrusted:
    'Ihre Organisation erlaubt die Anmeldung nur aus ihren vertrauenswürdigen Netzwerken, und Sie befinden sich außerhalb davon. Verbinden Sie sich über das Netzwerk Ihrer Organisation oder wenden Sie sich an deren Administrator.',
  accountDeactivated:
    'Ihr Konto ist deaktiviert. Bitte wenden Sie sich an den Administrator Ihrer Organisation.',
  noLoginStrategy:
    'Es wurde keine Anmeldemethode für Ihre Eingabe gefunden. Haben Sie das Formular richtig ausgefüllt?',
  loginExpired:
    'Der Anmeldevorgang ist vor {minutes, number, fixed2} Minuten abgelaufen. Bitte versuchen Sie es erneut.',
  registrationSignUp: 'Registrieren',
  duplicateAccount:
    'Es gibt bereits ein Konto mit derselben Kennung (E-Mail-Adresse, Telefonnummer, Benutzername …).',
  addressNotVerified: 'Das Konto ist noch nicht aktiv. Haben Sie Ihre E-Mail-Adresse schon bestätigt?',
  invalidEmail: '„{value}“ ist keine gültige E-Mail-Adresse.',
  signUpNotOpen:
    'Für diese E-Mail-Adresse ist keine Registrierung möglich. Bitten Sie den Administrator Ihrer Organisation um eine Einladung.',
  registrationExpired:
    'Der Registrierungsvorgang ist vor {minutes, number, fixed2} Minuten abgelaufen. Bitte versuchen Sie es erneut.',
  noRegistrationStrategy:
    'Es wurde keine Registrierungsmethode für Ihre Eingabe gefunden. Haben Sie das Formular richtig ausgefüllt?',
  saved: 'Ihre Änderungen wurden gespeichert.',
  authCode: 'Authentifizierungscode',
  useAuthenticator: 'Authenticator-App verwenden',
  unlinkTotp: 'Authenticator-App entfernen',
  totpQr: 'QR-Code für die Authenticator-App',
  secret: '{secret}',
  totpSecretLabel:
    'Dies ist der geheime Schlüssel für Ihre Authenticator-App. Verwenden Sie ihn, wenn Sie den QR-Code nicht scannen können.',
  save: 'Speichern',
  verifyCode: 'Code prüfen',
  resendCode: 'Code erneut senden',
  continue: 'Weiter',
  recoveryCode: 'Wiederherstellungscode',
  verificationCode: 'Bestätigungscode',
  invalidTotp: 'Der Authentifizierungscode ist ungültig. Bitte versuchen Sie es erneut.',
  tooManyAttempts: 'Die Anfrage wurde zu oft gesendet. Bitte fordern Sie einen neuen Code an.',
  codeLocked:
    'Für diese Adresse wurden zu viele falsche Codes eingegeben. Bitte versuchen Sie es in einer Stunde erneut.',
  codeNetworkLocked:
    'Aus Ihrem Netzwerk wurden zu viele falsche Codes eingegeben. Bitte versuchen Sie es in {minutes, plural, one {# Minute} other {# Minuten}} erneut.',
  totpLocked:
    'Es wurden zu viele falsche Authentifizierungscodes eingegeben. Bitte versuchen Sie es in einer Stunde erneut.',
  noTotp: 'Sie haben keine Authenticator-App eingerichtet.',
  lookupUsed: 'Dieser Backup-Wiederherstellungscode wurde bereits verwendet.',
  noLookup: 'Sie haben keine Backup-Wiederherstellungscodes eingerichtet.',
  lookupInvalid: 'Der Backup-Wiederherstellungscode ist ungültig.',
  lookupLabel: 'Backup-Wiederherstellungscode',
  useLookup: 'Backup-Wiederherstellungscode verwenden',
  revealLookup: 'Backup-Wiederherstellungscodes anzeigen',
  regenerateLookup: 'Neue Backup-Wiederherstellungscodes erzeugen',
  confirmLookup: 'Backup-Wiederherstellungscodes bestätigen',
  lookupList: '{secrets}',
  disableLookup: 'Diese Methode deaktivieren',
  lookupRemaining:
    '{remaining} von {total, plural, one {# Backup-Wiederherstellungscode} other {# Backup-Wiederherstellungscodes}} {remaining, plural, one {ist} other {sind}} noch übrig.',
  useSecurityKey: 'Sicherheitsschlüssel verwenden',
  passkeyLogin: 'Mit Passkey anmelden',
  addSecurityKey: 'Sicherheitsschlüssel hinzufügen',
  securityKeyName: 'Name des Sicherheitsschlüssels',
  removeSecurityKey: 'Sicherheitsschlüssel „{name}“ entfernen',
  addPasskey: 'Passkey hinzufügen',
  removePasskey: 'Passkey „{name}“ entfernen',
  passkeyName: 'Name des Passkeys',
  renamePasskey: 'Passkey „{name}“ umbenennen',
  renameSecurityKey: 'Sicherheitsschlüssel „{name}“ umbenennen',
  noWebAuthn: 'Sie haben keinen Passkey und keinen Sicherheitsschlüssel eingerichtet.',
  webauthnUnreadable:
    'Die Antwort des Passkeys oder Sicherheitsschlüssels konnte nicht gelesen werden. Bitte versuchen Sie es erneut.',
  webauthnInvalid:
    'Der Passkey oder Sicherheitsschlüssel konnte nicht geprüft werden. Bitte versuchen Sie es erneut.',
  webauthnExpired:
    'Die Passkey-Anfrage ist abgelaufen oder wurde bereits beantwortet. Bitte versuchen Sie es erneut.',
  keyNameInvalid: 'Geben Sie dem Schlüssel einen Namen mit 1 bis 64 Zeichen.',
  keyLimit: 'Es können höchstens {max} Schlüssel registriert werden. Entfernen Sie zuerst einen.',
  keyExists: 'Dieser Schlüssel ist bereits registriert.',
  recovered:
    'Ihr Konto wurde wiederhergestellt. Bitte ändern Sie in den nächsten {minutes, number, fixed2} Minuten Ihr Passwort oder richten Sie eine andere Anmeldemethode ein.',
  recoveryCodeSent:
    'Wir haben eine E-Mail mit einem Wiederherstellungscode an die angegebene Adresse gesendet. Falls keine E-Mail ankommt, prüfen Sie die Schreibweise der Adresse und verwenden Sie die Adresse, mit der Sie sich registriert haben.',
  recoveryInvalidCode:
    'Der Wiederherstellungscode ist ungültig oder wurde bereits verwendet. Bitte versuchen Sie es erneut.',
  recoveryExpired:
    'Der Wiederherstellungsvorgang ist vor {minutes, number, fixed2} Minuten abgelaufen. Bitte versuchen Sie es erneut.',
  verificationCodeSent:
    'Wir haben eine E-Mail mit einem Bestätigungscode an die angegebene Adresse gesendet. Falls keine E-Mail ankommt, prüfen Sie die Schreibweise der Adresse und verwenden Sie die Adresse, mit der Sie sich registriert haben.',
  verified: 'Ihre E-Mail-Adresse wurde bestätigt.',
  verificationInvalidCode:
    'Der Bestätigungscode ist ungültig oder wurde bereits verwendet. Bitte versuchen Sie es erneut.',
  verificationExpired:
    'Der Bestätigungsvorgang ist vor {minutes, number, fixed2} Minuten abgelaufen. Bitte versuchen Sie es erneut.',
  settingsExpired:
    'Der Einstellungsvorgang ist vor {minutes, number, fixed2} Minuten abgelaufen. Bitte versuchen Sie es erneut.',
  noSettingsStrategy:
    'Es wurde keine Methode gefunden, um Ihre Einstellungen zu ändern. Haben Sie das Formular richtig ausgefüllt?',
  noRecoveryStrategy:
    'Es wurde keine Methode gefunden, um Ihr Konto wiederherzustellen. Haben Sie das Formular richtig ausgefüllt?',
  noVerificationStrategy:
    'Es wurde keine Methode gefunden, um Ihr Konto zu bestätigen. Haben Sie das Formular richtig ausgefüllt?',
  alreadyCompleted:
    'Dieser Vorgang wurde bereits erfolgreich abgeschlossen und kann nicht wiederholt werden.',
  apiFlowUnsupported: 'Die Methode {method} wird für API-Vorgänge nicht unterstützt.',
  ssoNoMfa:
    'Wer sich über Single Sign-on (SSO) anmeldet, kann hier keine Zwei-Faktor-Authentifizierung einrichten.',
  totpAlreadySet: 'Es ist bereits eine Authenticator-App eingerichtet; entfernen Sie diese zuerst.',
  nameTooLong: 'Der Name ist länger als {max} Zeichen.',
  managedTrait:
    '{path} wird von Ihrer Organisation verwaltet und kann nur von einem Administrator geändert werden.',
  ssoUnknownProvider:
    'Dieser Single-Sign-on-Anbieter ist nicht eingerichtet. Wenden Sie sich an Ihren Administrator.',
  ssoUnreachable:
    'Der Identitätsanbieter Ihrer Organisation ist nicht erreichbar. Bitte versuchen Sie es später erneut.',
  ssoForeignAnswer:
    'Die Antwort Ihres Identitätsanbieters gehört nicht zu diesem Anmeldeversuch oder wurde bereits verwendet. Bitte versuchen Sie es erneut.',
  ssoDomain: 'Der Identitätsanbieter Ihrer Organisation kann diese E-Mail-Adresse nicht anmelden.',
  ssoInactive: 'Dieses Konto ist nicht aktiv. Wenden Sie sich an Ihren Administrator.',
  oidcCancelled: 'Die Anmeldung wurde beim Identitätsanbieter Ihrer Organisation abgebrochen.',
  oidcRefused: 'Der Identitätsanbieter Ihrer Organisation hat die Anmeldung abgelehnt ({error}).',
  oidcTokenUnverified:
    'Die Antwort des Identitätsanbieters Ihrer Organisation konnte nicht geprüft werden. Bitte versuchen Sie es erneut oder wenden Sie sich an Ihren Administrator.',
  oidcUnusableAnswer:
    'Der Identitätsanbieter Ihrer Organisation hat eine unbrauchbare Antwort gegeben. Bitte versuchen Sie es erneut.',
  oidcNoEmail: 'Der Identitätsanbieter Ihrer Organisation hat keine E-Mail-Adresse für Sie bestätigt.',
  oidcExpired: 'Diese Anmeldung hat zu lange gedauert. Bitte versuchen Sie es erneut.',
  samlMalformed:
    'Der Identitätsanbieter Ihrer Organisation hat eine unlesbare Antwort geschickt. Bitte versuchen Sie es erneut.',
  samlStatus:
    'Der Identitätsanbieter Ihrer Organisation hat Sie nicht angemeldet. Bitte versuchen Sie es erneut.',
  samlSignature:
    'Die Antwort des Identitätsanbieters Ihrer Organisation ist nicht mit seinem hinterlegten Zertifikat signiert. Wenden Sie sich an Ihren Administrator.',
  samlExpired:
    'Die Antwort des Identitätsanbieters Ihrer Organisation ist abgelaufen oder noch nicht gültig. Bitte versuchen Sie es erneut und prüfen Sie die Uhrzeit Ihres Geräts.',
  samlAudience:
    'Die Antwort des Identitätsanbieters Ihrer Organisation war für eine andere Anwendung bestimmt.',
  samlDestination:
    'Die Antwort des Identitätsanbieters Ihrer Organisation wurde an die falsche Adresse geschickt.',
  samlIssuer:
    'Die Antwort des Identitätsanbieters Ihrer Organisation stammt von einem anderen Identitätsanbieter.',
  samlReplayed:
    'Diese Antwort Ihres Identitätsanbieters wurde bereits verwendet. Beginnen Sie die Anmeldung von vorn.',
  samlNoEmail: 'Der Identitätsanbieter Ihrer Organisation hat keine E-Mail-Adresse für Sie geschickt.',
  samlNotFinished:
    'Für diese Anmeldung liegt noch keine Antwort Ihres Identitätsanbieters vor, oder sie wurde bereits verwendet. Bitte versuchen Sie es erneut.',
  memberOtherOrganisation:
    'Dieses Konto gehört zu einer anderen Organisation als der, deren Identitätsanbieter geantwortet hat. Wenden Sie sich an Ihren Administrator.',
  memberDomainMismatch: 'Die Domain der E-Mail-Adresse gehört nicht zur Organisation des Anbieters.',
  memberExists: 'Es gibt bereits einen Benutzer mit dieser E-Mail-Adresse.',
  memberDirectoryCreates:
    'Die Konten Ihrer Organisation legt deren Verzeichnis an. Bitten Sie Ihren Administrator, Ihnen Zugang zu dieser Anwendung zu geben.',
  memberNoJit:
    'Ihre Organisation legt bei der ersten Anmeldung keine Konten an. Bitten Sie Ihren Administrator, Sie hinzuzufügen.',
  memberUnknownProvider: 'Es gibt keinen Single-Sign-on-Anbieter mit dieser ID.',
  memberInvalidProvider: 'Unbekannter Anbieter.',
  bodyNotJson: 'Die Anfrage konnte nicht gelesen werden: Der Inhalt ist kein gültiges JSON.',
  bodyNotObject: 'Die Anfrage konnte nicht gelesen werden: Erwartet wurde ein JSON-Objekt.',
  bodyReservedKey:
    'Die Anfrage nennt einen reservierten Schlüssel (__proto__, constructor oder prototype), allein oder als Teil eines Schlüssels mit Punkten oder Schrägstrichen.',
  bodyUnstorableText:
    'Die Anfrage enthält ein NUL-Zeichen oder eine ungültige Unicode-Folge (ein einzelnes Surrogat).',
  traitMissing: '{path}: Ungültige Eingabe: erwartet {expected}, aber nichts angegeben',
  traitWrongType: '{path}: Ungültige Eingabe: erwartet {expected}, erhalten {received}',
  traitTooLong: '{path}: Zu lang: höchstens {max} Zeichen erlaubt',
  traitInvalidEmail: '{path}: Ungültige E-Mail-Adresse',
  traitInvalidDatetime: '{path}: Ungültige ISO-Zeitangabe',
  traitInvalidOption: '{path}: Ungültige Auswahl: erwartet einer von {options}',
  traitUnknownKeys:
    '{path}: {count, plural, one {Unbekannter Schlüssel} other {Unbekannte Schlüssel}}: {keys}',
} as const satisfies Translation<typeof en>;
