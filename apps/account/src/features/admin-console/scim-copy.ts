// The Provisioning (SCIM) section's copy (part of the console's copy: `consoleCopy.scim` in copy.ts).
// The set-up steps match docs/sso-and-provisioning.md, "Provisioning (SCIM)".

export const scimCopy = {
  intro:
    'Let your directory (Microsoft Entra ID, Okta or another SCIM 2.0 client) create, update and remove the accounts of your organisation. Give it the base URL and a token below.',
  on: 'Provisioning is on: your directory manages the accounts it created. People of your domains are no longer created at their first sign-in.',
  off: 'Provisioning is off: create a token to turn it on.',
  baseUrl: 'SCIM base URL (Tenant URL)',
  copyBaseUrl: 'Copy the base URL',
  copied: 'Copied.',
  copyFailed: 'Could not copy: select the text and copy it yourself.',
  tokens: {
    heading: 'Tokens',
    intro: 'Your directory sends a token with every request. Each token works until you revoke it.',
    name: 'Name',
    createHeading: 'Create a token',
    nameHint: 'For example "Entra ID provisioning". Shown in this list only.',
    create: 'Create token',
    nameRequired: 'Enter a name.',
    nameTooLong: (max: number) => `Use at most ${max} characters for the name.`,
    limitReached: (max: number) =>
      `Your organisation already has ${max} tokens, the most it may have. Revoke one you no longer use first.`,
    created: (name: string) => `Token ${name} created.`,
    tokenHeading: 'Your new token',
    tokenOnce:
      "Copy the token now and paste it into your directory as its secret token. You won't see it again: we keep only a fingerprint of it.",
    copy: 'Copy token',
    copiedToken: 'Token copied.',
    done: 'I have copied the token',
    createdAt: 'Created',
    lastUsed: 'Last used',
    never: 'Never',
    createdBy: 'Created by',
    revoke: 'Revoke',
    revokeNamed: (name: string) => `Revoke ${name}`,
    confirmRevoke: (name: string) =>
      `Revoke ${name}? Your directory's next request with it is refused, so it can no longer create, change or remove accounts. This cannot be undone.`,
    confirm: 'Yes, revoke',
    cancel: 'Cancel',
    revoked: (name: string) => `Token ${name} revoked.`,
    empty: 'No tokens yet.',
  },
  mappings: {
    heading: 'Group mapping',
    intro:
      "Your directory's groups decide the role and scope groups of the people it provisions. A person in no mapped group gets no scope groups, and the Member role when a mapping sets roles. A role set here can't be changed in the console.",
    group: 'Directory group',
    groupHint: 'The group name exactly as your directory sends it (its display name).',
    role: 'Role',
    roles: { user: 'Member', 'org-admin': 'Org admin', none: 'No role (scope groups only)' },
    scopeGroups: 'Scope groups',
    moreScopeGroups: 'Other scope groups (separated by commas)',
    noScopeGroups: 'Your organisation has no scope groups yet: type their names below.',
    rowLabel: (n: number) => `Mapping ${n}`,
    add: 'Add a mapping',
    remove: (n: number) => `Remove mapping ${n}`,
    save: 'Save group mapping',
    saved: 'Group mapping saved. It applies at the next change your directory sends.',
    empty: 'No groups are mapped: your directory creates and removes members only.',
    invalid: 'Check the mappings marked below.',
    tooMany: (max: number) => `Use at most ${max} mappings.`,
    groupRequired: 'Enter the group name.',
    groupTooLong: (max: number) => `Use at most ${max} characters for the group name.`,
    duplicate: 'This group is mapped twice: keep one mapping per group.',
    grantsNothing: 'Choose a role or at least one scope group.',
    tooManyScopeGroups: (max: number) => `Use at most ${max} scope groups.`,
    badScopeGroup: (group: string) => `"${group}" is not a scope group name.`,
  },
  managedByDirectory: 'Managed by your directory',
  managedNote:
    "This person's role comes from your directory's groups (Provisioning). Change their groups in your directory to change it.",
  removedByDirectory:
    'Your directory removed this person: the record stays for the audit trail. To give them access again, assign them in your directory.',
  managedRefused:
    "This role is managed by your directory: change the person's groups there. The console can't change it.",
} as const;
