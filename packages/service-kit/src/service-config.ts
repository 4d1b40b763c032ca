import type { z } from 'zod';
import {
  applyRenames,
  serviceDatabaseSchema,
  settingNames,
  settingsFromFiles,
  type PartSettings,
  type SettingRenames,
} from './config.ts';
import { managementConfig, managementEnvSchema, type ManagementConfig } from './management.ts';
import { overloadConfig, overloadEnvSchema, type OverloadConfig } from './overload.ts';

/** What a service's config.ts names about itself; the rest of its settings' frame follows from it. */
export interface ServicePart {
  /** The part's name, as its log lines and `deploy/env/<part>.env.example` name it. */
  part: string;
  title: string;
  /** Prefix of the part's own variables (`AGENT` for `AGENT_DATA_DIR`, `AGENT_MANAGEMENT_PORT`…). */
  prefix: string;
  /** Default port of the management listener (metrics and health). */
  managementPort: number;
  /** The part's own settings, which its loadConfig parses. */
  schema: z.ZodObject;
  renames: SettingRenames;
  /** Settings other modules of the process read (the mail worker's), listed after the database's. */
  alongside?: readonly z.ZodObject[];
  /** Settings of the process itself (its thread pool, its memory), listed last. */
  process?: readonly z.ZodObject[];
}

/** The settings every service has beside its own. */
export interface CommonSettings {
  /** Load shedding on event-loop lag (OVERLOAD_*; service-kit overload.ts). */
  overload: OverloadConfig;
  /** The management listener (`<PREFIX>_MANAGEMENT_PORT`/`_HOST`; service-kit management.ts). */
  management: ManagementConfig;
}

/**
 * Every setting of a service's process, for the generated reference, with the frame they share:
 * the database's, overload and management settings, old names and `X_FILE` reading.
 */
export interface ServiceSettings extends PartSettings {
  /** The variable naming the embedded database's directory (main.ts). */
  dataDirVariable: string;
  /** The variables the part's schema reads: old names carried over, `X_FILE` settings read. */
  readEnv(given: Record<string, string | undefined>): Record<string, string | undefined>;
  /** The settings every service has beside its own, from the variables readEnv gave. */
  common(env: Record<string, string | undefined>): CommonSettings;
}

export function serviceSettings(p: ServicePart): ServiceSettings {
  const dataDirVariable = `${p.prefix}_DATA_DIR`;
  return {
    part: p.part,
    title: p.title,
    schemas: [
      p.schema,
      serviceDatabaseSchema(dataDirVariable),
      ...(p.alongside ?? []),
      overloadEnvSchema,
      managementEnvSchema(p.prefix, p.managementPort),
      ...(p.process ?? []),
    ],
    renames: p.renames,
    dataDirVariable,
    readEnv: (given) => settingsFromFiles(applyRenames(p.part, given, p.renames), settingNames(p.schema)),
    common: (env) => ({
      overload: overloadConfig(env),
      management: managementConfig(p.prefix, p.managementPort, env),
    }),
  };
}
