// The configuration reference, rendered from the parts' zod schemas so that it cannot drift:
// docs/configuration.md (every variable of every part) and deploy/env/<part>.env.example.
// scripts/configuration.ts names the parts; `npm run config:docs` writes the files, and a test
// fails when either is stale.
import { z } from 'zod';
import type { PartSettings } from './config.ts';

/** One variable as the reference shows it. */
export interface SettingDoc {
  name: string;
  type: string;
  /** The default as text; undefined when the setting has none. */
  default: string | undefined;
  secret: boolean;
  description: string;
  oldNames: readonly string[];
}

interface Shape {
  type: string;
  default?: unknown;
}

type AnySchema = z.core.$ZodType;

function defOf(schema: AnySchema): z.core.$ZodTypeDef & Record<string, unknown> {
  return schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
}

/** A number's kind and bounds, from its checks: `integer 1–1000`, `number ≥ 0`. */
function numberType(def: Record<string, unknown>): string {
  let integer = false;
  let lo: number | undefined;
  let hi: number | undefined;
  for (const check of (def.checks ?? []) as { _zod: { def: Record<string, unknown> } }[]) {
    const c = check._zod.def;
    if (c.check === 'number_format' && (c.format === 'safeint' || c.format === 'int32')) integer = true;
    if (c.check === 'greater_than' && typeof c.value === 'number') lo = c.inclusive ? c.value : c.value + 1;
    if (c.check === 'less_than' && typeof c.value === 'number') hi = c.inclusive ? c.value : c.value - 1;
  }
  const kind = integer ? 'integer' : 'number';
  if (lo !== undefined && hi !== undefined) return `${kind} ${lo}–${hi}`;
  if (lo !== undefined) return `${kind} ≥ ${lo}`;
  if (hi !== undefined) return `${kind} ≤ ${hi}`;
  return kind;
}

/** The type and default of a schema, seen through defaults, optionals, pipes and transforms. */
function shapeOf(schema: AnySchema): Shape {
  const def = defOf(schema);
  switch (def.type) {
    case 'default':
    case 'prefault': {
      const inner = shapeOf(def.innerType as AnySchema);
      return { ...inner, default: def.defaultValue };
    }
    case 'optional':
    case 'nullable':
    case 'readonly':
      return shapeOf(def.innerType as AnySchema);
    case 'pipe': {
      // A preprocess: what counts is the schema it feeds.
      if (defOf(def.in as AnySchema).type === 'transform') return shapeOf(def.out as AnySchema);
      const from = shapeOf(def.in as AnySchema);
      const out = def.out as AnySchema;
      if (defOf(out).type === 'transform') return from;
      const to = shapeOf(out);
      const refined = to.type === 'URL' || to.type === 'UUID';
      const type = (from.type === 'string' || from.type === 'text') && refined ? to.type : from.type;
      return {
        type,
        ...('default' in from ? { default: from.default } : 'default' in to ? { default: to.default } : {}),
      };
    }
    case 'transform':
      return { type: 'text' };
    case 'string': {
      const format = def.format;
      if (format === 'url') return { type: 'URL' };
      if (format === 'uuid') return { type: 'UUID' };
      return { type: 'string' };
    }
    case 'number':
      return { type: numberType(def) };
    case 'boolean':
      return { type: 'boolean' };
    case 'enum':
      return {
        type: Object.values(def.entries as Record<string, string>)
          .map((v) => `\`${v}\``)
          .join(' | '),
      };
    case 'record':
      return { type: 'map' };
    default:
      return { type: def.type };
  }
}

const LONG = 200;

function defaultText(value: unknown, secret: boolean): string | undefined {
  if (value === undefined) return undefined;
  if (secret) return 'development value (set it in production)';
  if (Array.isArray(value)) return value.join(',');
  if (typeof value === 'object' && value !== null)
    return Object.keys(value).length ? JSON.stringify(value) : undefined;
  const text = String(value as string | number | boolean);
  return text.length > LONG || text.includes('\n') ? 'built-in development value' : text;
}

/** Every variable of a part, in schema order (a name in two schemas is listed once). */
export function partSettingDocs(part: PartSettings): SettingDoc[] {
  const seen = new Set<string>();
  const docs: SettingDoc[] = [];
  for (const schema of part.schemas) {
    for (const [name, field] of Object.entries(schema.shape as Record<string, AnySchema>)) {
      if (seen.has(name)) continue;
      seen.add(name);
      const meta = (z.globalRegistry.get(field) ?? {}) as {
        description?: string;
        secret?: boolean;
        /** Overrides the type read off the schema (e.g. a duration parsed by a transform). */
        type?: string;
      };
      if (!meta.description) throw new Error(`${part.part}: ${name} has no .describe()`);
      const secret = meta.secret === true;
      const shape = shapeOf(field);
      docs.push({
        name,
        type: meta.type ?? (shape.type === 'text' ? 'string' : shape.type),
        default: defaultText(shape.default, secret),
        secret,
        description: meta.description,
        oldNames: part.renames[name] ?? [],
      });
    }
  }
  return docs;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (text: string) => (text === '' ? '(empty)' : `\`${text}\``);

const HEADER = `# Configuration reference

<!-- Generated by \`npm run config:docs\` from the parts' zod schemas (scripts/configuration.ts). Do not edit: a test fails when it is stale. -->

Every environment variable each part reads, with its type, its default, whether it is a secret, and
what it does. Each part reads its settings once, at start, in its \`config.ts\`; a missing or malformed
value stops the process with one line naming the setting (exit status 78). An example file per part,
generated from the same schemas, is in \`deploy/env/<part>.env.example\`.

## Names

One name per setting across the parts:

- A setting that means the same in every part that reads it has one unprefixed name, the same
  everywhere: \`LOG_LEVEL\`, \`TRUST_PROXY\`, \`APP_ORIGINS\`, \`UPSTREAM_TIMEOUT_MS\`, \`DATABASE_*\`,
  \`OVERLOAD_*\`, \`SECURITY_EVENTS_*\`, \`SMTP_URL\`, \`M365_*\`.
- An address or key of a part is named after the part it belongs to, and every part that calls it
  uses that name: \`<PART>_PUBLIC_URL\`, \`<PART>_ADMIN_URL\`, \`<PART>_ADMIN_KEY\` (\`USERS_ADMIN_URL\`
  in the identity service and the authorization server alike).
- A setting each part sets to its own value (its ports, bind addresses, admin listener, database
  directory, migrations at start, limits) carries the part's prefix: \`IDENTITY_\`, \`OAUTH2_\`, \`USERS_\`,
  \`AGENT_\`, \`ACCOUNT_\`. Listeners are \`<PART>_PUBLIC_PORT\`/\`_HOST\` and \`<PART>_ADMIN_PORT\`/\`_HOST\`.
- A feature only one part has may keep its feature's name (\`SCIM_*\`, \`CONSOLE_*\`, \`GIT_*\`).

A renamed setting's old name is still read for one release: when only the old name is set its value
is used, and the process writes one warning line at start naming the old and the new name (never the
value). When both are set, the new name wins. The column *Old names* lists them.

A secret (*Secret: yes*) may also be given as \`<NAME>_FILE\`, the path of a mounted file holding it;
never put a secret in a ConfigMap.
`;

/** docs/configuration.md. */
export function renderReference(parts: readonly PartSettings[]): string {
  const sections = parts.map((part) => {
    const rows = partSettingDocs(part).map(
      (s) =>
        `| \`${s.name}\` | ${cell(s.type)} | ${s.default === undefined ? '—' : cell(code(s.default))} | ${s.secret ? `yes (or \`${s.name}_FILE\`)` : 'no'} | ${cell(s.description)} | ${s.oldNames.map((o) => `\`${o}\``).join(', ') || '—'} |`,
    );
    return [
      `## ${part.title} (\`${part.part}\`)`,
      '',
      `Example: \`deploy/env/${part.part}.env.example\`.`,
      '',
      '| Variable | Type | Default | Secret | What it does | Old names |',
      '| --- | --- | --- | --- | --- | --- |',
      ...rows,
    ].join('\n');
  });
  return `${HEADER}\n${sections.join('\n\n')}\n`;
}

/** deploy/env/<part>.env.example: every variable, commented out at its default. */
export function renderEnvExample(part: PartSettings): string {
  const lines = [
    `# ${part.title}: every setting it reads, at its default (commented out).`,
    '# Generated by `npm run config:docs` from its zod schemas; docs/configuration.md explains each.',
  ];
  for (const s of partSettingDocs(part)) {
    lines.push('', `# ${s.description}`);
    const facts = [`type: ${s.type.replace(/`/g, '')}`, `secret: ${s.secret ? 'yes' : 'no'}`];
    if (s.oldNames.length) facts.push(`old names: ${s.oldNames.join(', ')}`);
    lines.push(`# ${facts.join('; ')}`);
    if (s.secret) {
      lines.push(`#${s.name}=`, `#${s.name}_FILE=/run/secrets/${s.name.toLowerCase()}`);
    } else {
      lines.push(`#${s.name}=${s.default ?? ''}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Where each generated file lives, relative to the repository root, with its content now. */
export function generatedFiles(parts: readonly PartSettings[]): Record<string, string> {
  return {
    'docs/configuration.md': renderReference(parts),
    ...Object.fromEntries(parts.map((p) => [`deploy/env/${p.part}.env.example`, renderEnvExample(p)])),
  };
}
