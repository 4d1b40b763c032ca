import { AppError } from '../http/errors.ts';
import type { PathParams } from '../http/route.ts';
import { uuidSchema } from '../http/schemas.ts';
import { organisationIdParamsSchema } from './schemas.ts';

/** An organisation's id in a path (`:id`); one that is no UUID names no organisation (404). */
export const organisationPath: PathParams<typeof organisationIdParamsSchema, string> = {
  schema: organisationIdParamsSchema,
  resolve: ({ id }) => {
    if (!uuidSchema.safeParse(id).success)
      throw new AppError('ORGANISATION_NOT_FOUND', 'No organisation has this id.');
    return id;
  },
};
