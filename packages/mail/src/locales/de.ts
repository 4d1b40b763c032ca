import type { Translation } from '@acme/i18n/catalogue';
import type { en } from './en.ts';

/** Every text of the mails in German (Sie-form); exactly the English keys. */
export const de = {
  hello: 'Guten Tag,',
  helloName: 'Guten Tag {name},',
  signature: 'Ihr {app}-Team',
  recoverySubject: 'Ihr Wiederherstellungscode für das Passwort bei {app}',
  recoveryLead:
    'Jemand möchte das Passwort Ihres {app}-Kontos wiederherstellen. Geben Sie diesen Code ein, um fortzufahren:',
  recoveryIgnore:
    'Falls Sie das nicht angefordert haben, können Sie diese E-Mail ignorieren: Ihr Passwort bleibt unverändert.',
  verificationSubject: 'Bestätigen Sie Ihre E-Mail-Adresse für {app}',
  verificationLead: 'Geben Sie diesen Code ein, um Ihre E-Mail-Adresse für {app} zu bestätigen:',
  verificationIgnore: 'Falls Sie das nicht angefordert haben, können Sie diese E-Mail ignorieren.',
  invitationSubject: '{org} hat Sie zu {app} eingeladen',
  invitationLeadText:
    '{org} hat Sie eingeladen, {app} beizutreten. Öffnen Sie diesen Link, um Ihr Konto einzurichten:',
  invitationLeadHtml:
    '{org} hat Sie eingeladen, {app} beizutreten. Über die Schaltfläche unten richten Sie Ihr Konto ein.',
  invitationButton: 'Einladung annehmen',
  invitationCopyLink: 'Oder kopieren Sie diesen Link in Ihren Browser:',
  invitationExpires:
    'Die Einladung läuft am {expires} ab. Ist sie abgelaufen, bitten Sie {org} um eine neue.',
  invitationIgnore: 'Falls Sie diese Einladung nicht erwartet haben, können Sie diese E-Mail ignorieren.',
  passwordChangedSubject: 'Ihr Passwort bei {app} wurde geändert',
  passwordChangedLead: 'Das Passwort Ihres {app}-Kontos wurde am {when} geändert.',
  totpAddedSubject: 'Die Zwei-Faktor-Authentifizierung für {app} wurde eingeschaltet',
  totpAddedLead:
    'Am {when} wurde eine Authenticator-App als zweiter Faktor zu Ihrem {app}-Konto hinzugefügt.',
  totpRemovedSubject: 'Die Zwei-Faktor-Authentifizierung für {app} wurde ausgeschaltet',
  totpRemovedLead: 'Am {when} wurde die Authenticator-App von Ihrem {app}-Konto entfernt.',
  emailChangedSubject: 'Die E-Mail-Adresse Ihres {app}-Kontos wurde geändert',
  emailChangedLead: 'Die E-Mail-Adresse Ihres {app}-Kontos wurde am {when} geändert.',
  emailChangedToLead: 'Die E-Mail-Adresse Ihres {app}-Kontos wurde am {when} in {newEmail} geändert.',
  backupCodesCreatedSubject: 'Für Ihr {app}-Konto wurden neue Backup-Codes erstellt',
  backupCodesCreatedLead:
    'Am {when} wurde ein neuer Satz Backup-Codes für Ihr {app}-Konto erstellt; alle früheren Backup-Codes gelten nicht mehr.',
  backupCodesRemovedSubject: 'Die Backup-Codes Ihres {app}-Kontos wurden entfernt',
  backupCodesRemovedLead: 'Die Backup-Codes Ihres {app}-Kontos wurden am {when} entfernt.',
  backupCodeUsedSubject: 'Bei der Anmeldung bei {app} wurde ein Backup-Code verwendet',
  backupCodeUsedLead:
    'Am {when} wurde bei der Anmeldung bei Ihrem {app}-Konto ein Backup-Code statt der Authenticator-App verwendet.',
  backupCodesLeft:
    '{remaining, plural, one {Es ist noch # unbenutzter Backup-Code übrig.} other {Es sind noch # unbenutzte Backup-Codes übrig.}}',
  backupCodesLeftFew:
    '{remaining, plural, one {Es ist noch # unbenutzter Backup-Code übrig; erstellen Sie in Ihren Kontoeinstellungen einen neuen Satz.} other {Es sind noch # unbenutzte Backup-Codes übrig; erstellen Sie in Ihren Kontoeinstellungen einen neuen Satz.}}',
  passkeyAddedSubject: 'Zu Ihrem {app}-Konto wurde ein Passkey hinzugefügt',
  passkeyAddedLead:
    'Am {when} wurde Ihrem {app}-Konto ein Passkey hinzugefügt; mit ihm ist eine Anmeldung ohne Passwort möglich.',
  passkeyRemovedSubject: 'Von Ihrem {app}-Konto wurde ein Passkey entfernt',
  passkeyRemovedLead: 'Am {when} wurde ein Passkey von Ihrem {app}-Konto entfernt.',
  securityKeyAddedSubject: 'Zu Ihrem {app}-Konto wurde ein Sicherheitsschlüssel hinzugefügt',
  securityKeyAddedLead:
    'Am {when} wurde Ihrem {app}-Konto ein Sicherheitsschlüssel als zweiter Faktor hinzugefügt.',
  securityKeyRemovedSubject: 'Von Ihrem {app}-Konto wurde ein Sicherheitsschlüssel entfernt',
  securityKeyRemovedLead:
    'Am {when} wurde ein Sicherheitsschlüssel aus den zweiten Faktoren Ihres {app}-Kontos entfernt.',
  noticeIfYou: 'Wenn Sie diese Änderung selbst vorgenommen haben, ist nichts weiter zu tun.',
  noticeIfNot:
    'Andernfalls stellen Sie sofort Ihr Passwort wieder her und informieren Sie Ihren {app}-Administrator.',
  lockoutSubject: 'Die Anmeldung bei Ihrem {app}-Konto ist pausiert',
  lockoutLead:
    'Für Ihr {app}-Konto wurde zu oft ein falsches Passwort eingegeben. Die Anmeldung mit Passwort ist daher bis zum {until} pausiert.',
  lockoutOptions: 'Sie haben folgende Möglichkeiten:',
  lockoutWait: 'bis zum {until} warten und sich dann erneut anmelden;',
  lockoutResetText:
    'oder Ihr Passwort über „Passwort vergessen“ ({link}) zurücksetzen, wodurch die Pause sofort endet;',
  lockoutResetHtml: 'oder Ihr Passwort über {link} zurücksetzen, wodurch die Pause sofort endet;',
  lockoutForgotPassword: 'Passwort vergessen',
  lockoutAdmin: 'oder Ihren {app}-Administrator bitten, die Pause zu beenden.',
  lockoutIfNot:
    'Falls diese Versuche nicht von Ihnen stammen, versucht möglicherweise jemand, Ihr Passwort zu erraten: Setzen Sie es zurück und informieren Sie Ihren Administrator.',
  unprovenSubject: 'Von Ihnen nicht eingerichtete Anmeldemethoden wurden von Ihrem {app}-Konto entfernt',
  unprovenLead:
    'Mit Ihrer E-Mail-Adresse war ein {app}-Konto angelegt worden, die Adresse wurde aber nie bestätigt. Am {when} sind Sie Inhaber dieses Kontos geworden; daher wurden sein Passwort, seine Passkeys, zweiten Faktoren und Sitzungen entfernt: Niemand, der sie eingerichtet hat, kann sich damit anmelden.',
  unprovenNext:
    'Melden Sie sich so an, wie Ihre Organisation es vorsieht; in Ihren Kontoeinstellungen können Sie ein Passwort oder einen Passkey hinzufügen.',
  unprovenIfNot: 'Falls Sie das nicht erwartet haben, informieren Sie Ihren {app}-Administrator.',
  webhookDisabledSubject: '{app}: Ein Webhook-Endpunkt wurde deaktiviert',
  webhookDisabledBody:
    'Ein Webhook-Endpunkt Ihrer Organisation, {url}, ist 24 Stunden lang bei jeder Zustellung gescheitert und wurde deaktiviert. Ereignisse werden nicht mehr an ihn gesendet. Beheben Sie den Fehler beim Empfänger und schalten Sie den Endpunkt danach in der {app}-Administrationskonsole (Webhooks) wieder aktiv; dort lassen sich auch die gescheiterten Zustellungen erneut senden.',
} as const satisfies Translation<typeof en>;
