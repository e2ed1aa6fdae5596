import { z } from 'zod';
import { HOOK_ID } from '@agentplatform/service-kit';
import { executionResponse } from '../workflows/workflows.schemas.js';

/**
 * The hook id is the hook's credential: one of another shape is an unknown hook (404, drawing
 * from the address's budget), not a validation error, so the pattern is checked by the handler
 * and only documented here.
 */
const hookId = z
  .string()
  .meta({ pattern: HOOK_ID.source, description: "The workflow's secret hook id (its webhook_url)" });

export const hookParams = z.object({ hook_id: hookId });

export const hookPathParams = z.object({
  hook_id: hookId,
  // @koa/router gives a wildcard's segments as an array.
  path: z
    .union([z.string(), z.array(z.string())])
    .transform((path) => (Array.isArray(path) ? path.join('/') : path))
    .meta({ description: "The webhook node's path (config.path), e.g. `orders/v2`" }),
});

/** Whatever the caller's system sends (JSON or a form, within the body limits): the execution's `input.body`. */
export const hookBody = z.unknown().meta({ description: "Any JSON (or a form): the execution's input.body" });

/**
 * 202 with the execution id; a `last_node` hook answers once its run ended (200) or when its wait
 * is over (202, still running) with the run's status and output.
 */
export const hookResponse = executionResponse
  .pick({ execution_id: true, status: true, output: true, error: true })
  .partial({ status: true, output: true });
