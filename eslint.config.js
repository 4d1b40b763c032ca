import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';
import noImportCycles from './lint/no-import-cycles.js';
import maxBodyLines from './lint/max-body-lines.js';

/** The repository's own lint rules (lint/). */
const acme = { rules: { 'no-import-cycles': noImportCycles, 'max-body-lines': maxBodyLines } };
import { trees } from './lint/import-graph.js';

const services = ['identity', 'oauth2', 'users', 'agent'];
const apps = ['account'];

/** Import patterns that reach into a service's source tree, by package name or by relative path. */
const serviceInternals = (names) =>
  names.flatMap((name) => [`@acme/${name}/src/**`, `**/services/${name}/**`, `**/${name}/src/**`]);

/**
 * Import boundaries (the shape of the repository):
 * - an app talks to the services over HTTP only, so it imports no service code at all;
 * - a service reaches another service through that service's client export, never its `src/` files;
 * - a package (code with two or more users) depends on no app and no service.
 */
const boundaries = [
  {
    files: ['apps/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                ...services.map((s) => `@acme/${s}`),
                ...services.map((s) => `@acme/${s}/**`),
                '**/services/**',
              ],
              message: 'Apps call services over HTTP; they never import service code.',
            },
          ],
        },
      ],
    },
  },
  ...services.map((name) => ({
    files: [`services/${name}/**`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: serviceInternals(services.filter((s) => s !== name)),
              message: "Services reach each other through the other service's client, not its src/ files.",
            },
            {
              group: [...apps.map((a) => `@acme/${a}`), ...apps.map((a) => `@acme/${a}/**`), '**/apps/**'],
              message: 'Services never import app code.',
            },
          ],
        },
      ],
    },
  })),
  {
    files: ['packages/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                ...[...services, ...apps].flatMap((s) => [`@acme/${s}`, `@acme/${s}/**`]),
                '**/services/**',
                '**/apps/**',
              ],
              message: 'Packages import no app and no service.',
            },
          ],
        },
      ],
    },
  },
];

/**
 * The identity service's folders and the other folders each may import (docs/architecture.md,
 * "Identity service folders"). Root modules (config, context, metrics, app, index) are open to all;
 * `testing/` is imported only by tests.
 */
const identityFolders = {
  db: [],
  errors: [],
  ui: [],
  oauth2: ['errors'],
  password: ['errors', 'ui'],
  http: ['errors', 'flows', 'sessions'],
  sessions: ['db', 'errors', 'http', 'identities'],
  identities: ['db', 'errors', 'http', 'password', 'sessions', 'strategies', 'throttle'],
  courier: ['db', 'errors', 'http'],
  throttle: ['db', 'http', 'identities'],
  flows: ['db', 'errors', 'http', 'identities', 'sessions', 'strategies', 'ui'],
  strategies: ['db', 'errors', 'flows', 'identities', 'password', 'sessions', 'throttle', 'ui'],
  testing: ['db', 'flows', 'oauth2', 'password', 'sessions'],
};

/** The service boundary patterns of one service (the same as `boundaries` gives it). */
const serviceBoundary = (name) => [
  {
    group: serviceInternals(services.filter((s) => s !== name)),
    message: "Services reach each other through the other service's client, not its src/ files.",
  },
  {
    group: [...apps.map((a) => `@acme/${a}`), ...apps.map((a) => `@acme/${a}/**`), '**/apps/**'],
    message: 'Services never import app code.',
  },
];

/**
 * The user service's folders and the other folders each may import (docs/architecture.md, "User
 * service folders"): the event log and the HTTP kit at the bottom, then records (users, terms,
 * organisations), the domains above them, and the console and the operator's /admin/users routes
 * on top. Root modules (config, context, db-types, migrations, app, index) are open to all.
 */
const usersFolders = {
  access: ['events', 'http', 'users'],
  'admin-users': ['console', 'events', 'http', 'members', 'users'],
  'api-clients': ['events', 'http', 'organisations', 'users'],
  claims: ['access', 'clients', 'http', 'onboarding', 'sso', 'terms', 'users'],
  clients: ['http'],
  'connected-apps': ['access', 'http'],
  console: [
    'access',
    'api-clients',
    'clients',
    'events',
    'http',
    'invitations',
    'members',
    'organisations',
    'scim',
    'signup',
    'sso',
    'terms',
    'users',
    'webhooks',
  ],
  directory: ['events', 'http', 'users'],
  events: ['feed'],
  feed: ['clients'],
  'git-auth': ['http'],
  http: ['clients'],
  invitations: ['clients', 'http', 'organisations', 'users'],
  login: ['claims', 'http', 'm365', 'organisations', 'signup'],
  m365: ['access', 'claims', 'events', 'http', 'users'],
  members: ['access', 'api-clients', 'clients', 'events', 'http', 'users'],
  onboarding: ['events', 'http', 'invitations', 'terms'],
  organisations: ['http'],
  scim: ['access', 'directory', 'events', 'http', 'invitations', 'members', 'organisations', 'sso', 'users'],
  signup: ['events', 'http', 'organisations', 'users'],
  sso: ['directory', 'events', 'http', 'organisations', 'users'],
  terms: [],
  users: ['http', 'organisations', 'terms'],
  webhooks: ['access', 'events', 'feed', 'http', 'users'],
};

/** `no-restricted-imports` entries holding each folder of `service` to the folders it may import. */
const folderLayers = (service, folders) =>
  Object.entries(folders).flatMap(([folder, allowed]) => {
    const forbidden = Object.keys(folders).filter((f) => f !== folder && !allowed.includes(f));
    // A file one or two folders below src/ reaches a sibling folder through as many `../`.
    return [1, 2].map((depth) => ({
      files: [`services/${service}/src/${folder}/${'*/'.repeat(depth - 1)}*.ts`],
      ignores: ['**/*.test.ts'],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              ...serviceBoundary(service),
              {
                regex: `^${'\\.\\./'.repeat(depth)}(${forbidden.join('|')})/`,
                message: `services/${service}/src/${folder}/ may import only ${allowed.join(', ') || 'no other folder'} (docs/architecture.md).`,
              },
            ],
          },
        ],
      },
    }));
  });

/**
 * Cycles: in each service's and the app's source tree, folders form a one-way graph and so do files
 * (lint/no-import-cycles.js). Identity's one known folder cycle is listed until it is untangled: an
 * import between two of its folders passes, any other folder joining them fails.
 */
const cycles = {
  files: trees.map((tree) => `${tree}/**/*.{ts,tsx}`),
  ignores: ['**/*.test.ts', '**/*.test.tsx'],
  plugins: { acme },
  rules: {
    'acme/no-import-cycles': [
      'error',
      {
        knownFolderCycles: {
          'services/identity/src': [
            'config.ts',
            'flows/',
            'http/',
            'identities/',
            'sessions/',
            'strategies/',
            'throttle/',
          ],
        },
      },
    ],
  },
};

/**
 * Data from a request (its body, query or path parameters, or what was parsed from them) is read
 * by own property only: `'key' in body` is also true for a key inherited from a prototype, so a
 * polluted prototype would steer the code (packages/service-kit/src/prototype.ts). Use
 * `hasOwnKey` / `Object.hasOwn`, or parse the data with its schema.
 */
const REQUEST_DATA = '/^(body|query|params|payload|input|data|raw|json|parsed|form|fields|traits|metadata)$/';
const requestDataIn = {
  files: ['services/**/*.ts', 'packages/**/*.ts', 'dev/**/*.ts', 'apps/account/server/**/*.ts'],
  // Tests read answers, not requests.
  ignores: ['**/*.test.ts', '**/test/**'],
  rules: {
    'no-restricted-syntax': [
      'error',
      ...[
        `BinaryExpression[operator="in"][right.type="Identifier"][right.name=${REQUEST_DATA}]`,
        `BinaryExpression[operator="in"][right.type="MemberExpression"][right.property.name=${REQUEST_DATA}]`,
      ].map((selector) => ({
        selector,
        message:
          "`in` on request data also sees a prototype's keys: use hasOwnKey (@acme/service-kit/prototype), Object.hasOwn or the data's schema.",
      })),
    ],
  },
};

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '.data/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
  },
  {
    files: ['apps/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
  },
  ...boundaries,
  ...folderLayers('identity', identityFolders),
  ...folderLayers('users', usersFolders),
  cycles,
  requestDataIn,
  {
    // The stand-ins stay readable by endpoint: no function over 120 lines (issue 21, item 13).
    files: ['dev/**/*.ts'],
    rules: {
      'max-lines-per-function': [
        'error',
        { max: 120, skipBlankLines: true, skipComments: true, IIFEs: true },
      ],
    },
  },
  {
    // The app's hooks stay thin: their effects are pure decide-*/select-* functions with table
    // tests, run by small hooks; no hook function over 80 lines (issue 21, item 12).
    files: ['apps/account/src/**/use-*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // The app's components and the hooks in its .tsx files stay short too: a component at most 120
    // lines, a hook at most 80 (the same as in use-*.ts), split by concern (data hook, list, dialog).
    files: ['apps/account/src/**/*.tsx'],
    ignores: ['**/*.test.tsx'],
    plugins: { acme },
    rules: { 'acme/max-body-lines': ['error', { component: 120, hook: 80 }] },
  },
  {
    files: ['scripts/**', 'bench/**', 'lint/**', 'services/*/src/cli.ts', 'dev/src/main.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['**/*.mjs', '**/*.cjs', 'lint/**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
