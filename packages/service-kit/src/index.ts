export { appOriginsSchema, logLevelSchema, portSchema, trustProxySchema } from './config.ts';
export { ServiceError, toErrorResponse } from './errors.ts';
export type { ErrorBody } from './errors.ts';
export { registerHealthRoutes } from './health.ts';
