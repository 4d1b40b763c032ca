import type { z } from 'zod';
import type { AppError } from './errors.ts';
import { recordPath, type AddJsonRoute } from './route.ts';

/** What an operator's collection of records is made of: its schemas and how it reads and writes. */
export interface Collection<
  R extends z.ZodType,
  B extends z.ZodType,
  Q extends z.ZodObject,
  L extends z.ZodType,
> {
  /** One record, as every route answers it. */
  record: R;
  /** `POST`: what a new record is made from; `create` makes it and answers it. */
  body: B;
  create(body: z.output<B>): Promise<z.input<R>>;
  /** What the log says of a record just created (its ids; never a secret). */
  created(record: z.input<R>): [fields: Record<string, unknown>, message: string];
  /** `GET`: the list's filters and answer. */
  query: Q;
  list: L;
  select(query: z.output<Q>): Promise<z.input<L>>;
  /** `GET …/:id`: the path's schema, the record of an id, and the 404 of an id that names none. */
  idParams: z.ZodObject<{ id: z.ZodString }>;
  find(id: string): Promise<z.input<R> | null>;
  notFound(): AppError;
}

/**
 * The three routes of an operator's collection at `path` (users, invitations): `POST path` creates a
 * record (201) and logs it, `GET path` lists them, `GET path/:id` reads one (an id that is no UUID,
 * or no record's, is `notFound`).
 */
export function collectionRoutes<
  R extends z.ZodType,
  B extends z.ZodType,
  Q extends z.ZodObject,
  L extends z.ZodType,
>(route: AddJsonRoute, path: string, collection: Collection<R, B, Q, L>): void {
  // Past the caller's types (checked above), the routes see schemas and values of any shape.
  const c: Collection<z.ZodType, z.ZodType, z.ZodObject, z.ZodType> = collection;
  route('POST', path, { body: c.body, status: 201, response: c.record }, async ({ body }, request) => {
    const record = await c.create(body);
    request.log.info(...c.created(record));
    return record;
  });
  route('GET', path, { query: c.query, response: c.list }, async ({ query }) => c.select(query));
  route(
    'GET',
    `${path}/:id`,
    {
      params: recordPath(
        c.idParams,
        (id) => c.find(id),
        () => c.notFound(),
      ),
      response: c.record,
    },
    async ({ params: record }) => record,
  );
}
