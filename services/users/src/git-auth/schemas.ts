import { z } from 'zod';

export const initialiseBodySchema = z.object({ flow: z.string().trim().min(1).max(2048) }).strict();

export const initialiseAnswerSchema = z.object({ authenticationUrl: z.url() });

export const completeBodySchema = z
  .object({
    code: z.string().trim().min(1).max(512),
    state: z.string().trim().min(1).max(512),
  })
  .strict();

export const unlinkAnswerSchema = z.object({ connected: z.literal(false), removed: z.boolean() });

export const completeAnswerSchema = z.object({ connected: z.literal(true), login: z.string() });
