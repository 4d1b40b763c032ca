import { APPLICATION_DEFAULTS, APPLICATIONS, type Application } from '../../shared/config/applications.ts';
import { getConfig } from '../../shared/config/env.ts';

/**
 * The name a connected app is shown by: the one its client was registered with, or, for the
 * platform's own applications (registered without one, so the user service lists their client id),
 * the application's name — this application's configured name, another's default one.
 */
export function connectedAppName(app: { clientId: string; name: string }): string {
  if (app.name !== app.clientId || !(APPLICATIONS as readonly string[]).includes(app.clientId))
    return app.name;
  const config = getConfig();
  const id = app.clientId as Application;
  return id === config.clientId || id === config.application ? config.appName : APPLICATION_DEFAULTS[id].name;
}
