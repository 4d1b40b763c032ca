import type { Translation } from '../../../i18n/catalogue.ts';
import type { scimEn } from './scim.en.ts';

// The Provisioning (SCIM) section's German texts: exactly the keys of scim.en.ts.

export const scimDe: Translation<typeof scimEn> = {
  intro:
    'Lassen Sie Ihr Verzeichnis (Microsoft Entra ID, Okta oder einen anderen SCIM-2.0-Client) die Konten Ihrer Organisation anlegen, ändern und entfernen. Geben Sie ihm unten die Basis-URL und ein Token.',
  on: 'Die Bereitstellung ist eingeschaltet: Ihr Verzeichnis verwaltet die Konten, die es angelegt hat. Personen Ihrer Domains werden nicht mehr bei der ersten Anmeldung angelegt.',
  off: 'Die Bereitstellung ist ausgeschaltet: Erstellen Sie ein Token, um sie einzuschalten.',
  baseUrl: 'SCIM-Basis-URL (Mandanten-URL)',
  copyBaseUrl: 'Basis-URL kopieren',
  copied: 'Kopiert.',
  copyFailed: 'Kopieren nicht möglich: Markieren Sie den Text und kopieren Sie ihn selbst.',
  tokens: {
    heading: 'Tokens',
    intro: 'Ihr Verzeichnis sendet bei jeder Anfrage ein Token. Jedes Token gilt, bis Sie es widerrufen.',
    name: 'Name',
    createHeading: 'Token erstellen',
    nameHint: 'Zum Beispiel „Entra-ID-Bereitstellung“. Wird nur in dieser Liste angezeigt.',
    create: 'Token erstellen',
    nameRequired: 'Geben Sie einen Namen ein.',
    nameTooLong: 'Der Name darf höchstens {max} Zeichen lang sein.',
    limitReached:
      'Ihre Organisation hat bereits {max} Tokens, so viele wie erlaubt. Widerrufen Sie zuerst eines, das Sie nicht mehr nutzen.',
    created: 'Token {name} erstellt.',
    tokenHeading: 'Ihr neues Token',
    tokenOnce:
      'Kopieren Sie das Token jetzt und fügen Sie es in Ihrem Verzeichnis als geheimes Token ein. Sie sehen es nicht wieder: Wir speichern nur einen Fingerabdruck davon.',
    copy: 'Token kopieren',
    copiedToken: 'Token kopiert.',
    done: 'Ich habe das Token kopiert',
    createdAt: 'Erstellt',
    lastUsed: 'Zuletzt verwendet',
    never: 'Nie',
    createdBy: 'Erstellt von',
    revoke: 'Widerrufen',
    revokeNamed: '{name} widerrufen',
    confirmRevoke:
      '{name} widerrufen? Die nächste Anfrage Ihres Verzeichnisses damit wird abgelehnt, es kann also keine Konten mehr anlegen, ändern oder entfernen. Das lässt sich nicht rückgängig machen.',
    confirm: 'Ja, widerrufen',
    cancel: 'Abbrechen',
    revoked: 'Token {name} widerrufen.',
    empty: 'Noch keine Tokens.',
  },
  mappings: {
    heading: 'Gruppenzuordnung',
    intro:
      'Die Gruppen Ihres Verzeichnisses bestimmen Rolle und Scope-Gruppen der Personen, die es bereitstellt. Eine Person in keiner zugeordneten Gruppe erhält keine Scope-Gruppen und die Rolle Mitglied, wenn eine Zuordnung Rollen festlegt. Eine hier festgelegte Rolle lässt sich in der Konsole nicht ändern.',
    group: 'Verzeichnisgruppe',
    groupHint: 'Der Gruppenname genau so, wie Ihr Verzeichnis ihn sendet (sein Anzeigename).',
    role: 'Rolle',
    roles: { user: 'Mitglied', 'org-admin': 'Org-Admin', none: 'Keine Rolle (nur Scope-Gruppen)' },
    scopeGroups: 'Scope-Gruppen',
    moreScopeGroups: 'Weitere Scope-Gruppen (durch Kommas getrennt)',
    noScopeGroups: 'Ihre Organisation hat noch keine Scope-Gruppen: Geben Sie ihre Namen unten ein.',
    rowLabel: 'Zuordnung {n}',
    add: 'Zuordnung hinzufügen',
    remove: 'Zuordnung {n} entfernen',
    save: 'Gruppenzuordnung speichern',
    saved: 'Gruppenzuordnung gespeichert. Sie gilt ab der nächsten Änderung, die Ihr Verzeichnis sendet.',
    empty: 'Keine Gruppen zugeordnet: Ihr Verzeichnis legt Mitglieder nur an und entfernt sie.',
    invalid: 'Prüfen Sie die unten markierten Zuordnungen.',
    tooMany: 'Verwenden Sie höchstens {max} Zuordnungen.',
    groupRequired: 'Geben Sie den Gruppennamen ein.',
    groupTooLong: 'Der Gruppenname darf höchstens {max} Zeichen lang sein.',
    duplicate: 'Diese Gruppe ist zweimal zugeordnet: Behalten Sie eine Zuordnung pro Gruppe.',
    grantsNothing: 'Wählen Sie eine Rolle oder mindestens eine Scope-Gruppe.',
    tooManyScopeGroups: 'Verwenden Sie höchstens {max} Scope-Gruppen.',
    badScopeGroup: '„{group}“ ist kein Name einer Scope-Gruppe.',
  },
  managedByDirectory: 'Von Ihrem Verzeichnis verwaltet',
  managedNote:
    'Die Rolle dieser Person ergibt sich aus den Gruppen Ihres Verzeichnisses (Bereitstellung). Ändern Sie dort ihre Gruppen, um sie zu ändern.',
  removedByDirectory:
    'Ihr Verzeichnis hat diese Person entfernt: Der Eintrag bleibt für das Prüfprotokoll erhalten. Um ihr wieder Zugriff zu geben, weisen Sie sie in Ihrem Verzeichnis zu.',
  managedRefused:
    'Diese Rolle wird von Ihrem Verzeichnis verwaltet: Ändern Sie dort die Gruppen der Person. Die Konsole kann sie nicht ändern.',
};
