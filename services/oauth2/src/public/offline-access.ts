import type { Middleware } from 'koa';

/**
 * oidc-provider drops `offline_access` unless `prompt` contains `consent`; Hydra does not.
 * On `GET /oauth2/auth` asking for offline_access, add `consent` to the prompt (the app's consent
 * route accepts without showing anything), so refresh tokens are issued as with Hydra.
 */
export function offlineAccessPrompt(authorizationPath: string): Middleware {
  return async (ctx, next) => {
    if (ctx.method === 'GET' && ctx.path === authorizationPath) {
      const { scope, prompt } = ctx.query;
      if (typeof scope === 'string' && scope.split(' ').includes('offline_access')) {
        const prompts = typeof prompt === 'string' ? prompt.split(' ').filter(Boolean) : [];
        if (prompt === undefined || (typeof prompt === 'string' && !prompts.includes('none'))) {
          if (!prompts.includes('consent')) prompts.push('consent');
          ctx.query = { ...ctx.query, prompt: prompts.join(' ') };
        }
      }
    }
    return next();
  };
}
