import { z } from 'zod';
import { openApi } from '@acme/service-kit/openapi';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { parseInput, sendOutput } from '../http/validate.ts';
import { findInvitation, listInvitations } from '../invitations/repository.ts';
import { createInvitationSchema, invitationListSchema, invitationSchema } from '../invitations/schemas.ts';
import {
  createInvitation,
  resendInvitation,
  revokeInvitation,
  type InvitationHook,
} from '../invitations/service.ts';
import { toCsv } from '../terms/csv.ts';
import { createApiClientSchema } from '../api-clients/schemas.ts';
import { createApiClient, createWebApp, revokeApiClient } from '../api-clients/service.ts';
import { listConsoleApiClients, readSubscription } from './organisation.ts';
import { consoleSelfSignUpSchema, selfSignUpSettingSchema } from '../signup/schemas.ts';
import { eventRetentionSchema, eventRetentionSettingSchema } from '@acme/users-contract/console';
import { readEventRetention, setEventRetention } from './event-retention.ts';
import { consoleSelfSignUp, setSelfSignUp } from '../signup/service.ts';
import { identityFacts } from './identity-facts.ts';
import { registerConsoleSsoRoutes } from './sso.ts';
import { registerConsoleScimRoutes } from '../scim/console-routes.ts';
import { registerConsoleWebhookRoutes } from '../webhooks/routes.ts';
import type { Permission } from '../users/roles.ts';
import { authoriseConsole, consoleCaller, originOf, type ConsoleCaller } from '../access/auth.ts';
import { listMergedEvents, listMergedEventsUpTo } from './merged-events.ts';
import { signInFacts } from './sign-in-facts.ts';
import {
  cursorOf,
  parseCursor,
  recordEvent,
  type EventFilter,
  type EventOrigin,
  type SecurityEventType,
} from '../events/events.ts';
import {
  assignableRoles,
  changeRole,
  deactivateMember,
  endMemberSessions,
  findMember,
  listMembers,
  reactivateMember,
  resetMemberTwoFactor,
  unlockMember,
} from '../members/members.ts';
import {
  apiClientParamsSchema,
  consoleApiClientListSchema,
  consoleApiClientSchema,
  consoleCreateApiClientSchema,
  consoleCreatedApiClientSchema,
  subscriptionSchema,
  changeRoleSchema,
  eventListSchema,
  exportEventsQuerySchema,
  invitationParamsSchema,
  inviteSchema,
  listEventsQuerySchema,
  listMembersQuerySchema,
  meSchema,
  memberDetailSchema,
  orgParamsSchema,
  memberListSchema,
  memberParamsSchema,
  memberSchema,
} from './schemas.ts';

/** The permission each console section needs (docs/architecture.md has the same table). */
const CONSOLE_PERMISSIONS = {
  readMembers: 'ViewUsers',
  manageMembers: 'ManageOrganisationUsers',
  securityEvents: 'ManageOrganisationSettings',
  // Every role holds ManageAccessTokens (for a person's own tokens); the organisation's API
  // clients are an organisation setting besides.
  apiClients: ['ManageAccessTokens', 'ManageOrganisationSettings'],
  subscription: 'MagicManageOrganisationBilling',
  selfSignUp: 'ManageOrganisationSettings',
  eventRetention: 'ManageOrganisationSettings',
} as const satisfies Record<string, Permission | readonly Permission[]>;

const CSV_EXPORT_LIMIT = 10_000;

/**
 * The organisation admin console API (issue 24), on the public port. Every call carries the
 * person's access token; what they may do is read from our database on each call.
 */
export function registerConsoleRoutes(app: FastifyInstance, ctx: UsersContext): void {
  const authorise = (
    request: FastifyRequest,
    permission: Permission | readonly Permission[],
    write: boolean,
  ) => authoriseConsole(ctx, request, permission, write);

  /** A read of one organisation's data: the section's permission, the data, its answer schema. */
  const readRoute = <T extends z.ZodType>(
    path: string,
    permission: Permission | readonly Permission[],
    schema: T,
    load: (organisationId: string) => Promise<z.input<T>>,
  ) =>
    app.get(
      path,
      openApi({ params: orgParamsSchema, responses: { 200: schema } }),
      async (request, reply) => {
        const { organisationId } = await authorise(request, permission, false);
        return sendOutput(reply, 200, schema, await load(organisationId));
      },
    );

  /**
   * One organisation setting: GET shows it; PUT changes it with the admin as the actor and answers
   * what GET would show afterwards.
   */
  const settingRoutes = <V extends z.ZodType, S extends z.ZodType>(
    path: string,
    permission: Permission | readonly Permission[],
    schemas: { view: V; setting: S },
    read: (organisationId: string) => Promise<z.input<V>>,
    write: (
      organisationId: string,
      setting: z.output<S>,
      origin: EventOrigin,
      request: FastifyRequest,
    ) => Promise<unknown>,
  ) => {
    readRoute(path, permission, schemas.view, read);
    app.put(
      path,
      openApi({ params: orgParamsSchema, body: schemas.setting, responses: { 200: schemas.view } }),
      async (request, reply) => {
        const { caller, organisationId } = await authorise(request, permission, true);
        const setting = parseInput(schemas.setting, request.body);
        await write(organisationId, setting, originOf(caller, request), request);
        return sendOutput(reply, 200, schemas.view, await read(organisationId));
      },
    );
  };

  app.get(
    '/console/me',
    openApi({ security: 'bearer', responses: { 200: meSchema } }),
    async (request, reply) => {
      const caller = await consoleCaller(ctx, request);
      return sendOutput(reply, 200, meSchema, {
        userId: caller.userId,
        email: caller.email,
        organisationId: caller.organisationId,
        role: caller.role,
        permissions: [...caller.permissions],
        assignableRoles: assignableRoles(caller.role),
      });
    },
  );

  // Members
  app.get(
    '/console/organisations/:organisationId/members',
    openApi({ params: orgParamsSchema, query: listMembersQuerySchema, responses: { 200: memberListSchema } }),
    async (request, reply) => {
      const { organisationId } = await authorise(request, CONSOLE_PERMISSIONS.readMembers, false);
      const query = parseInput(listMembersQuerySchema, request.query);
      const { members, total, totalExact } = await listMembers(ctx.db, organisationId, query);
      return sendOutput(reply, 200, memberListSchema, {
        members,
        total,
        totalExact,
        page: query.page,
        pageSize: query.pageSize,
      });
    },
  );

  app.get(
    '/console/organisations/:organisationId/members/:userId',
    openApi({ params: memberParamsSchema, responses: { 200: memberDetailSchema } }),
    async (request, reply) => {
      const { organisationId } = await authorise(request, CONSOLE_PERMISSIONS.readMembers, false);
      const { userId } = parseInput(memberParamsSchema, request.params);
      const member = await findMember(ctx.db, organisationId, userId);
      if (!member) throw new AppError('USER_NOT_FOUND', 'No member of this organisation has this id.');
      const [identity, signIn, recentEvents] = await Promise.all([
        member.identityId === null ? null : identityFacts(ctx, member.identityId),
        member.identityId === null ? null : signInFacts(ctx, member.identityId),
        listMergedEvents(ctx, { organisationId, subjectId: userId, limit: 10 }),
      ]);
      const { identityId: _identityId, ...rest } = member;
      return sendOutput(reply, 200, memberDetailSchema, {
        ...rest,
        identityState: identity?.state ?? null,
        signInMethods: identity?.signInMethods ?? [],
        twoFactor: identity?.twoFactor ?? null,
        lastSignIn: signIn?.lastSignIn ?? null,
        lockout: signIn?.lockout ?? null,
        recentEvents,
      });
    },
  );

  const memberAction = (
    path: string,
    run: (
      caller: ConsoleCaller,
      request: FastifyRequest,
      organisationId: string,
      userId: string,
    ) => Promise<unknown>,
    answer: { 200: typeof memberSchema } | { 204: null },
    body?: z.ZodType,
  ) =>
    app.post(
      `/console/organisations/:organisationId/members/:userId/${path}`,
      openApi({ params: memberParamsSchema, ...(body ? { body } : {}), responses: answer }),
      async (request, reply) => {
        const { caller, organisationId } = await authorise(request, CONSOLE_PERMISSIONS.manageMembers, true);
        const { userId } = parseInput(memberParamsSchema, request.params);
        const result = await run(caller, request, organisationId, userId);
        if (result === undefined) return reply.code(204).send();
        return sendOutput(reply, 200, memberSchema, result as never);
      },
    );
  const memberAnswer = { 200: memberSchema };
  const noContent = { 204: null };

  memberAction(
    'role',
    async (caller, request, organisationId, userId) => {
      const { role } = parseInput(changeRoleSchema, request.body);
      const member = await changeRole(ctx, caller, originOf(caller, request), organisationId, userId, role);
      // The response schema leaves the identity id out.
      return member;
    },
    memberAnswer,
    changeRoleSchema,
  );
  // The member's one-step actions: each takes the member and answers it (200) or nothing (204).
  type MemberStep = (
    ctx: UsersContext,
    caller: ConsoleCaller,
    origin: EventOrigin,
    organisationId: string,
    userId: string,
  ) => Promise<unknown>;
  const memberSteps: [string, MemberStep, typeof memberAnswer | typeof noContent][] = [
    ['deactivate', deactivateMember, memberAnswer],
    ['reactivate', reactivateMember, memberAnswer],
    ['end-sessions', endMemberSessions, noContent],
    ['reset-2fa', resetMemberTwoFactor, noContent],
    ['unlock', unlockMember, noContent],
  ];
  for (const [path, step, answer] of memberSteps) {
    memberAction(
      path,
      async (caller, request, organisationId, userId) => {
        const result = await step(ctx, caller, originOf(caller, request), organisationId, userId);
        return '204' in answer ? undefined : result;
      },
      answer,
    );
  }

  // Invitations (the first-class invitations of the operator API, scoped to the organisation)
  const audit =
    (
      caller: ConsoleCaller,
      request: FastifyRequest,
      type: SecurityEventType,
      details?: Record<string, string>,
    ): InvitationHook =>
    async (trx, invitation) =>
      recordEvent(
        trx,
        originOf(caller, request),
        { organisationId: invitation.organisationId, type, subjectId: invitation.userId, details },
        ctx.clock.now(),
      );

  readRoute(
    '/console/organisations/:organisationId/invitations',
    CONSOLE_PERMISSIONS.manageMembers,
    invitationListSchema,
    async (organisationId) => {
      const invitations = await listInvitations(ctx.db, organisationId, ctx.clock.now());
      return { invitations };
    },
  );

  app.post(
    '/console/organisations/:organisationId/invitations',
    openApi({ params: orgParamsSchema, body: inviteSchema, responses: { 201: invitationSchema } }),
    async (request, reply) => {
      const { caller, organisationId } = await authorise(request, CONSOLE_PERMISSIONS.manageMembers, true);
      const body = parseInput(inviteSchema, request.body);
      if (!assignableRoles(caller.role).includes(body.role)) {
        throw new AppError('PERMISSION_DENIED', `You cannot assign the role ${body.role}.`);
      }
      const input = parseInput(createInvitationSchema, { ...body, organisationId });
      const invitation = await createInvitation(
        ctx,
        input,
        audit(caller, request, 'member.invited', { role: body.role }),
        { identityId: caller.identityId },
      );
      return sendOutput(reply, 201, invitationSchema, invitation);
    },
  );

  const invitationInOrg = async (request: FastifyRequest) => {
    const { caller, organisationId } = await authorise(request, CONSOLE_PERMISSIONS.manageMembers, true);
    const { invitationId } = parseInput(invitationParamsSchema, request.params);
    const invitation = await findInvitation(ctx.db, invitationId, ctx.clock.now());
    if (!invitation || invitation.organisationId !== organisationId) {
      throw new AppError('INVITATION_NOT_FOUND', 'No invitation of this organisation has this id.');
    }
    return { caller, invitation };
  };

  app.post(
    '/console/organisations/:organisationId/invitations/:invitationId/resend',
    openApi({ params: invitationParamsSchema, responses: { 200: invitationSchema } }),
    async (request, reply) => {
      const { caller, invitation } = await invitationInOrg(request);
      const resent = await resendInvitation(ctx, invitation.id, audit(caller, request, 'invitation.resent'), {
        identityId: caller.identityId,
      });
      return sendOutput(reply, 200, invitationSchema, resent);
    },
  );

  app.post(
    '/console/organisations/:organisationId/invitations/:invitationId/revoke',
    openApi({ params: invitationParamsSchema, responses: { 200: invitationSchema } }),
    async (request, reply) => {
      const { caller, invitation } = await invitationInOrg(request);
      const revoked = await revokeInvitation(
        ctx,
        invitation.id,
        audit(caller, request, 'invitation.revoked'),
      );
      return sendOutput(reply, 200, invitationSchema, revoked);
    },
  );

  // API clients (client-credentials clients of the authorization server, through their service)
  readRoute(
    '/console/organisations/:organisationId/api-clients',
    CONSOLE_PERMISSIONS.apiClients,
    consoleApiClientListSchema,
    async (organisationId) => {
      const apiClients = await listConsoleApiClients(ctx.db, organisationId);
      return { apiClients };
    },
  );

  app.post(
    '/console/organisations/:organisationId/api-clients',
    openApi({
      params: orgParamsSchema,
      body: consoleCreateApiClientSchema,
      responses: { 201: consoleCreatedApiClientSchema },
    }),
    async (request, reply) => {
      const { caller, organisationId } = await authorise(request, CONSOLE_PERMISSIONS.apiClients, true);
      const body = parseInput(consoleCreateApiClientSchema, request.body);
      reply.header('cache-control', 'no-store');
      if (body.kind === 'web') {
        const app = await createWebApp(
          ctx,
          {
            organisationId,
            name: body.name,
            redirectUris: body.redirectUris,
            postLogoutRedirectUris: body.postLogoutRedirectUris ?? [],
            actorEmail: caller.email,
          },
          originOf(caller, request),
        );
        return sendOutput(reply, 201, consoleCreatedApiClientSchema, {
          ...pickConsoleFields(app, caller.email),
          kind: 'web',
          redirectUris: app.redirectUris,
        });
      }
      const { name, scopeGroups } = body;
      const input = parseInput(createApiClientSchema, {
        name,
        scopeGroups,
        organisationId,
        actorEmail: caller.email,
      });
      const created = await createApiClient(ctx, input, originOf(caller, request));
      return sendOutput(reply, 201, consoleCreatedApiClientSchema, {
        ...pickConsoleFields(created, caller.email),
        kind: 'client_credentials',
        redirectUris: [],
      });
    },
  );

  app.post(
    '/console/organisations/:organisationId/api-clients/:clientId/revoke',
    openApi({ params: apiClientParamsSchema, responses: { 200: consoleApiClientSchema } }),
    async (request, reply) => {
      const { caller, organisationId } = await authorise(request, CONSOLE_PERMISSIONS.apiClients, true);
      const { clientId } = parseInput(apiClientParamsSchema, request.params);
      const known = (await listConsoleApiClients(ctx.db, organisationId)).find((c) => c.id === clientId);
      if (!known)
        throw new AppError('API_CLIENT_NOT_FOUND', 'No API client of this organisation has this id.');
      const revoked = await revokeApiClient(ctx, clientId, caller.email, originOf(caller, request));
      return sendOutput(reply, 200, consoleApiClientSchema, { ...known, revokedAt: revoked.revokedAt });
    },
  );

  // Single sign-on (console/sso.ts)
  registerConsoleSsoRoutes(app, ctx, authorise);

  // SCIM provisioning (scim/console-routes.ts)
  registerConsoleScimRoutes(app, ctx, authorise);

  // Webhooks and the events feed (webhooks/routes.ts)
  registerConsoleWebhookRoutes(app, ctx, authorise);

  // Subscription (read-only: the marketplace and the operator change it)
  readRoute(
    '/console/organisations/:organisationId/subscription',
    CONSOLE_PERMISSIONS.subscription,
    subscriptionSchema,
    async (organisationId) => {
      const subscription = await readSubscription(ctx.db, organisationId);
      if (!subscription) throw new AppError('ORGANISATION_NOT_FOUND', 'No organisation has this id.');
      return subscription;
    },
  );

  // Self sign-up (issue 25): the same setting and refusal as the operator's, the admin as the actor
  settingRoutes(
    '/console/organisations/:organisationId/self-signup',
    CONSOLE_PERMISSIONS.selfSignUp,
    { view: consoleSelfSignUpSchema, setting: selfSignUpSettingSchema },
    async (organisationId) => ({ organisationId, ...(await consoleSelfSignUp(ctx, organisationId)) }),
    async (organisationId, { enabled }, origin, request) => {
      await setSelfSignUp(ctx, organisationId, enabled, origin);
      request.log.info({ organisationId, enabled }, 'self sign-up set by an organisation admin');
    },
  );

  // The organisation's own event retention (issue 38), bounded by the service's
  settingRoutes(
    '/console/organisations/:organisationId/event-retention',
    CONSOLE_PERMISSIONS.eventRetention,
    { view: eventRetentionSchema, setting: eventRetentionSettingSchema },
    (organisationId) => readEventRetention(ctx, organisationId),
    (organisationId, { retentionDays }, origin) =>
      setEventRetention(ctx, organisationId, retentionDays, origin),
  );

  // Security events
  function eventFilter(
    organisationId: string,
    query: { subjectId?: string; type?: string; from?: string; to?: string },
  ) {
    const filter: EventFilter = { organisationId, limit: 0 };
    if (query.subjectId !== undefined) filter.subjectId = query.subjectId;
    if (query.type !== undefined) filter.type = query.type;
    if (query.from !== undefined) filter.from = new Date(query.from);
    if (query.to !== undefined) filter.to = new Date(query.to);
    return filter;
  }

  app.get(
    '/console/organisations/:organisationId/events',
    openApi({ params: orgParamsSchema, query: listEventsQuerySchema, responses: { 200: eventListSchema } }),
    async (request, reply) => {
      const { organisationId } = await authorise(request, CONSOLE_PERMISSIONS.securityEvents, false);
      const query = parseInput(listEventsQuerySchema, request.query);
      const filter = eventFilter(organisationId, query);
      if (query.cursor !== undefined) {
        const before = parseCursor(query.cursor);
        if (!before)
          throw new AppError('INVALID_REQUEST', 'The request is invalid: cursor: not a page cursor');
        filter.before = before;
      }
      // One more than asked: whether a next page exists, without a count.
      filter.limit = query.limit + 1;
      const rows = await listMergedEvents(ctx, filter);
      const events = rows.slice(0, query.limit);
      const nextCursor = rows.length > query.limit ? cursorOf(events.at(-1)!) : null;
      return sendOutput(reply, 200, eventListSchema, { events, nextCursor });
    },
  );

  app.get(
    '/console/organisations/:organisationId/events.csv',
    openApi({
      params: orgParamsSchema,
      query: exportEventsQuerySchema,
      responses: { 200: { content: { 'text/csv': z.string() } } },
    }),
    async (request, reply) => {
      const { organisationId } = await authorise(request, CONSOLE_PERMISSIONS.securityEvents, false);
      const query = parseInput(exportEventsQuerySchema, request.query);
      const events = await listMergedEventsUpTo(ctx, eventFilter(organisationId, query), CSV_EXPORT_LIMIT);
      const csv = toCsv(
        [
          'time',
          'type',
          'actor_kind',
          'actor_id',
          'subject_id',
          'ip',
          'user_agent',
          'request_id',
          'source',
          'details',
        ],
        events.map((e) => [
          e.occurredAt,
          e.type,
          e.actorKind,
          e.actorId,
          e.subjectId,
          e.ip,
          e.userAgent,
          e.requestId,
          e.source,
          Object.entries(e.details)
            .map(([k, v]) => `${k}=${v}`)
            .join(' '),
        ]),
      );
      return reply
        .code(200)
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="security-events.csv"')
        .header('cache-control', 'no-store')
        .send(csv);
    },
  );
}

/** The console's view of a just-created API client (the secret included, this once). */
function pickConsoleFields(
  created: {
    id: string;
    name: string;
    scopeGroups: string[];
    createdAt: string;
    revokedAt: string | null;
    clientSecret: string;
  },
  createdBy: string,
) {
  const { id, name, scopeGroups, createdAt, revokedAt, clientSecret } = created;
  return { id, name, scopeGroups, createdAt, createdBy, revokedAt, clientSecret };
}
