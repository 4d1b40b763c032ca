import type { EventOrigin } from '../events/events.ts';

/** Who a SCIM request acts for: the token's organisation, nothing else, ever. */
export interface ScimScope {
  organisationId: string;
  tokenId: string;
  /** `<USERS_PUBLIC_URL>/scim/v2`, for `meta.location` and `$ref`. */
  baseUrl: string;
  /** Events name the directory (the token's id) as the actor. */
  origin: EventOrigin;
}

export interface ListPage {
  startIndex: number;
  count: number;
}

export function listResponse<T>(resources: T[], total: number, page: ListPage) {
  return {
    schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
    totalResults: total,
    startIndex: page.startIndex,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}
