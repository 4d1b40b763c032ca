/** SCIM's fixed limits (issue 26; docs/security.md "SCIM provisioning"). */

/** The most resources one list page holds (a larger `count` is capped). */
export const MAX_SCIM_PAGE_SIZE = 100;
/** The largest SCIM request body: 1 MiB (413 beyond). */
export const SCIM_BODY_LIMIT = 1024 * 1024;
/** The most operations one PATCH request carries. */
export const MAX_PATCH_OPERATIONS = 1000;
