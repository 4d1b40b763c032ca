/**
 * The audience (RFC 8707 resource indicator) of the access tokens the platform's own APIs accept.
 * A token asked for another resource (an MCP server, say) carries that resource instead, and these
 * APIs refuse it.
 */
export const PLATFORM_API_AUDIENCE = 'urn:acme:api';
