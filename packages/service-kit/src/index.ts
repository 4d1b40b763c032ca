export { appOriginsSchema, logLevelSchema, portSchema, trustProxySchema } from './config.ts';
export { clientAddress, proxyTrust, type TrustProxy } from './proxy-trust.ts';
export { ServiceError, toErrorResponse } from './errors.ts';
export type { ErrorBody } from './errors.ts';
export { registerHealthRoutes } from './health.ts';
export {
  adminAccess,
  adminAuthHeaders,
  adminHostSchema,
  adminKeySchema,
  checkAdminRequest,
  hostListSchema,
  isLoopback,
  registerAdminGuard,
} from './admin-access.ts';
export type { AdminAccess } from './admin-access.ts';
export { isOpaqueOriginWrite, refuseOpaqueOrigins } from './origin.ts';
export { exitOnUnhandledErrors } from './crash.ts';
