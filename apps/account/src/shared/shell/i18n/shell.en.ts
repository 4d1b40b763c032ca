// The signed-in shell's English texts (a catalogue: src/i18n/catalogue.ts), kept beside the shell so that
// they load with the signed-in screens only and the login route's bundle stays as it is.

export const shellEn = {
  /** The person menu's button, for assistive technology (the button shows the person's name). */
  personMenu: ['{name}: account menu', 'name'],
  settings: 'Account settings',
  console: 'Organisation console',
  signOut: 'Sign out',
  backTo: ['Back to {application}', 'application'],
  /** The narrow screens' section menu button: the sections' label and the current one. */
  sectionsButton: ['{label}: {current}', 'label', 'current'],
  /** The account page's sections: the whole page, then each section on its own. */
  settingsNav: 'Account settings sections',
  allSettings: 'All settings',
  organisation: 'Organisation',
} as const;
