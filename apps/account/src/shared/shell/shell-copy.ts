// The signed-in shell's copy, one place. Kept beside the shell (not in src/copy.ts) so that the
// strings load with the signed-in screens only and the login route's bundle stays as it is.

export const shellCopy = {
  /** The person menu's button, for assistive technology (the button shows the person's name). */
  personMenu: (name: string) => `${name}: account menu`,
  settings: 'Account settings',
  console: 'Organisation console',
  signOut: 'Sign out',
  backTo: (application: string) => `Back to ${application}`,
  /** The narrow screens' section menu button: the sections' label and the current one. */
  sectionsButton: (label: string, current: string) => `${label}: ${current}`,
  /** The account page's sections: the whole page, then each section on its own. */
  settingsNav: 'Account settings sections',
  allSettings: 'All settings',
  organisation: 'Organisation',
} as const;
