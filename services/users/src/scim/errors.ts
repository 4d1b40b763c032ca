import { ServiceError } from '@acme/service-kit/errors';

/**
 * SCIM's error response (RFC 7644 §3.12): every failure under /scim/v2, the framework's own
 * included (malformed JSON, content type, body size, unknown route), answers this schema with the
 * status as a string and, for 400 and 409, a `scimType`. Never a stack trace or a token.
 */
const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers'
  | 'sensitive';

export class ScimError extends Error {
  readonly status: number;
  readonly detail: string;
  readonly scimType: ScimType | undefined;
  readonly headers: Record<string, string>;

  constructor(status: number, detail: string, scimType?: ScimType, headers: Record<string, string> = {}) {
    super(detail);
    this.name = 'ScimError';
    this.status = status;
    this.detail = detail;
    this.scimType = scimType;
    this.headers = headers;
  }
}

export const scimNotFound = (what: 'User' | 'Group' | 'resource' = 'resource') =>
  new ScimError(404, `No ${what} of this organisation has this id.`);

export const invalidValue = (detail: string) => new ScimError(400, detail, 'invalidValue');

export interface ScimErrorBody {
  schemas: [typeof SCIM_ERROR_SCHEMA];
  status: string;
  scimType?: ScimType;
  detail: string;
}

/** Fastify's own refusals (parsing, size, media type), by their codes. */
const FRAMEWORK: Record<string, { status: number; detail: string; scimType?: ScimType }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, detail: 'The request body is larger than 1 MiB.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    detail: 'Send application/scim+json or application/json.',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    status: 400,
    detail: 'The Content-Length does not match the body.',
    scimType: 'invalidSyntax',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    status: 400,
    detail: 'The request body is empty.',
    scimType: 'invalidSyntax',
  },
  FST_ERR_CTP_INVALID_JSON_BODY: {
    status: 400,
    detail: 'The request body is not valid JSON.',
    scimType: 'invalidSyntax',
  },
};

/** The one serializer of the SCIM API: status, headers and body for anything thrown. */
export function toScimErrorResponse(error: unknown): {
  status: number;
  headers: Record<string, string>;
  body: ScimErrorBody;
} {
  let status = 500;
  let detail = 'The service could not complete the request.';
  let scimType: ScimType | undefined;
  let headers: Record<string, string> = {};
  if (error instanceof ScimError) {
    ({ status, detail, scimType, headers } = error);
  } else if (error instanceof ServiceError) {
    status = error.status;
    detail = error.message;
    headers = error.headers;
    if (status === 400) scimType = 'invalidValue';
    if (status === 409) scimType = 'uniqueness';
  } else {
    const code = (error as { code?: unknown } | null)?.code;
    const known = typeof code === 'string' ? FRAMEWORK[code] : undefined;
    if (known) ({ status, detail, scimType } = known);
    else if (error instanceof SyntaxError) {
      status = 400;
      detail = 'The request body is not valid JSON.';
      scimType = 'invalidSyntax';
    } else {
      const statusCode = (error as { statusCode?: unknown } | null)?.statusCode;
      if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
        status = statusCode;
        detail = 'The request is invalid.';
        if (status === 400) scimType = 'invalidSyntax';
      }
    }
  }
  const body: ScimErrorBody = { schemas: [SCIM_ERROR_SCHEMA], status: String(status), detail };
  if (scimType !== undefined) body.scimType = scimType;
  return { status, headers, body };
}
