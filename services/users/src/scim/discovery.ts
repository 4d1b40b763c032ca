import { MAX_SCIM_PAGE_SIZE, SCIM_BODY_LIMIT } from './limits.ts';

/**
 * The static discovery documents (RFC 7643 §5–7, RFC 7644 §4): what this server supports. Built
 * once per base URL (the `meta.location`s name it).
 */

export const SCHEMA = {
  user: 'urn:ietf:params:scim:schemas:core:2.0:User',
  group: 'urn:ietf:params:scim:schemas:core:2.0:Group',
  enterpriseUser: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
  listResponse: 'urn:ietf:params:scim:api:messages:2.0:ListResponse',
  patchOp: 'urn:ietf:params:scim:api:messages:2.0:PatchOp',
  serviceProviderConfig: 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig',
  resourceType: 'urn:ietf:params:scim:schemas:core:2.0:ResourceType',
  schema: 'urn:ietf:params:scim:schemas:core:2.0:Schema',
} as const;

interface Attribute {
  name: string;
  type: 'string' | 'boolean' | 'complex' | 'reference' | 'dateTime';
  multiValued: boolean;
  description: string;
  required: boolean;
  caseExact: boolean;
  mutability: 'readOnly' | 'readWrite' | 'immutable' | 'writeOnly';
  returned: 'always' | 'default' | 'never' | 'request';
  uniqueness: 'none' | 'server' | 'global';
  subAttributes?: Attribute[];
  referenceTypes?: string[];
}

const attr = (name: string, description: string, overrides: Partial<Attribute> = {}): Attribute => ({
  name,
  type: 'string',
  multiValued: false,
  description,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...overrides,
});

const USER_ATTRIBUTES: Attribute[] = [
  attr('userName', "The person's work email address, in one of the organisation's domains.", {
    required: true,
    uniqueness: 'server',
  }),
  attr('name', "The person's name.", {
    type: 'complex',
    subAttributes: [
      attr('formatted', 'The full name.', { mutability: 'readOnly' }),
      attr('givenName', 'The given (first) name.'),
      attr('familyName', 'The family (last) name.'),
    ],
  }),
  attr('displayName', 'The name shown for the person.', { mutability: 'readOnly' }),
  attr('active', 'false deactivates the person at once (sessions end, refresh refused).', {
    type: 'boolean',
  }),
  attr('emails', 'The work address; always equal to userName.', {
    multiValued: true,
    type: 'complex',
    subAttributes: [
      attr('value', 'The address.'),
      attr('type', 'Always work.', { mutability: 'readOnly' }),
      attr('primary', 'Always true.', { type: 'boolean', mutability: 'readOnly' }),
    ],
  }),
  attr('groups', 'The groups the person is in (change them through /Groups).', {
    multiValued: true,
    type: 'complex',
    mutability: 'readOnly',
    subAttributes: [
      attr('value', 'The group id.', { mutability: 'readOnly' }),
      attr('display', 'The group name.', { mutability: 'readOnly' }),
      attr('$ref', 'The group URI.', {
        type: 'reference',
        mutability: 'readOnly',
        referenceTypes: ['Group'],
      }),
    ],
  }),
];

const GROUP_ATTRIBUTES: Attribute[] = [
  attr('displayName', 'The group name; the console maps it to a role and scope groups.', {
    required: true,
    uniqueness: 'server',
  }),
  attr('members', 'The people in the group.', {
    multiValued: true,
    type: 'complex',
    subAttributes: [
      attr('value', 'The person id.', { mutability: 'immutable' }),
      attr('display', "The person's userName.", { mutability: 'readOnly' }),
      attr('$ref', 'The person URI.', {
        type: 'reference',
        mutability: 'readOnly',
        referenceTypes: ['User'],
      }),
    ],
  }),
];

export function discovery(baseUrl: string) {
  const meta = (resourceType: string, path: string) => ({ resourceType, location: `${baseUrl}${path}` });
  const schemas = [
    {
      schemas: [SCHEMA.schema],
      id: SCHEMA.user,
      name: 'User',
      description: 'A person of the organisation',
      attributes: USER_ATTRIBUTES,
      meta: meta('Schema', `/Schemas/${SCHEMA.user}`),
    },
    {
      schemas: [SCHEMA.schema],
      id: SCHEMA.group,
      name: 'Group',
      description: 'A directory group',
      attributes: GROUP_ATTRIBUTES,
      meta: meta('Schema', `/Schemas/${SCHEMA.group}`),
    },
  ];
  const resourceTypes = [
    {
      schemas: [SCHEMA.resourceType],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: 'A person of the organisation',
      schema: SCHEMA.user,
      meta: meta('ResourceType', '/ResourceTypes/User'),
    },
    {
      schemas: [SCHEMA.resourceType],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      description: 'A directory group',
      schema: SCHEMA.group,
      meta: meta('ResourceType', '/ResourceTypes/Group'),
    },
  ];
  const serviceProviderConfig = {
    schemas: [SCHEMA.serviceProviderConfig],
    documentationUri: `${baseUrl.replace(/\/scim\/v2$/, '')}/`,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_SCIM_PAGE_SIZE },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'Bearer token',
        description: `A SCIM token an organisation admin creates in the admin console. Requests up to ${SCIM_BODY_LIMIT} bytes.`,
        primary: true,
      },
    ],
    meta: meta('ServiceProviderConfig', '/ServiceProviderConfig'),
  };
  return { schemas, resourceTypes, serviceProviderConfig };
}
