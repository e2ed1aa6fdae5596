import { z } from 'zod';
import type { FieldIssue, NodeType } from '@agentplatform/service-kit';
import { checkExpression, templateExpressions } from './expressions.js';
import { cronProblem, isTimezone } from './schedule.js';
import { fixedOrigin } from './sealed-headers.js';
import type { JsonValue } from './workflow.types.js';

/** Limits of docs/design.md section 7 and of this implementation (docs/workflow-nodes.md). */
export const LIMITS = {
  maxNodes: 100,
  maxDelayMs: 300_000,
  maxNodeTimeoutMs: 15 * 60_000,
  maxAttempts: 10,
  maxBackoffMs: 60_000,
  maxHttpTimeoutMs: 300_000,
  /** An expression or a template, in UTF-8 bytes (docs/design.md section 7). */
  maxExpressionBytes: 4_096,
  /** How old a missed schedule tick may be and still run once (a day). */
  maxCatchUpMs: 86_400_000,
  /** Items one foreach node may run its workflow over. */
  maxForeachItems: 1_000,
  maxForeachConcurrency: 16,
  defaultForeachConcurrency: 4,
  /** Levels of workflows started by workflow or foreach nodes below a top-level run. */
  maxNestingDepth: 5,
} as const;

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;

export const retrySchema = z.strictObject({
  max_attempts: z.number().int().min(1).max(LIMITS.maxAttempts),
  backoff_ms: z.number().int().min(0).max(LIMITS.maxBackoffMs).default(1_000),
});

export const timeoutSchema = z.number().int().min(1).max(LIMITS.maxNodeTimeoutMs);

/** Keys any node's config may carry besides its own (the same as on the node itself). */
const common = { retry: retrySchema.optional(), timeout_ms: timeoutSchema.optional() };

const template = z.string().max(100_000);

const CONFIG_SCHEMAS: Record<NodeType, z.ZodType> = {
  webhook: z.strictObject({
    ...common,
    path: z
      .string()
      .max(200)
      .regex(/^[a-z0-9\-/]*$/, 'may contain only a-z, 0-9, - and /')
      .optional(),
    response_mode: z.enum(['immediate', 'last_node']).optional(),
  }),
  agent: z.strictObject({
    ...common,
    agent_id: z.string().min(1, 'is required'),
    message: template.optional(),
    session_id: template.optional(),
  }),
  condition: z.strictObject({
    ...common,
    rules: z
      .array(
        z.union(
          [z.strictObject({ if: z.string(), goto: z.string().min(1) }), z.strictObject({ else: z.string().min(1) })],
          { error: 'must be {if, goto} or {else}' },
        ),
      )
      .min(1, 'needs at least one rule'),
  }),
  integration: z.strictObject({
    ...common,
    service: z.string(),
    url: template.min(1, 'is required'),
    method: z.enum(HTTP_METHODS).optional(),
    headers: z.record(z.string(), template).optional(),
    body: z.unknown().optional(),
    timeout_ms: z.number().int().min(1).max(LIMITS.maxHttpTimeoutMs).optional(),
  }),
  transform: z.strictObject({
    ...common,
    fields: z.record(z.string().min(1), z.string()).optional(),
  }),
  delay: z.strictObject({
    ...common,
    ms: z.number().int().min(0).max(LIMITS.maxDelayMs),
  }),
  schedule: z.strictObject({
    ...common,
    cron: z.string().min(1, 'is required').max(200),
    timezone: z.string().min(1).max(64).optional(),
    input: z.record(z.string(), z.unknown()).optional(),
    catch_up_ms: z.number().int().min(0).max(LIMITS.maxCatchUpMs).optional(),
  }),
  workflow: z.strictObject({
    ...common,
    workflow_id: z.string().min(1, 'is required'),
    input: z
      .union([template, z.record(z.string(), template)], { error: 'must be a template or an object of templates' })
      .optional(),
  }),
  foreach: z.strictObject({
    ...common,
    workflow_id: z.string().min(1, 'is required'),
    items: z.string().min(1, 'is required'),
    concurrency: z.number().int().min(1).max(LIMITS.maxForeachConcurrency).optional(),
  }),
};

/** Integration services that run; others are refused at validation until implemented. */
export const INTEGRATION_SERVICES = ['http'] as const;

export function fieldPath(root: string, path: ReadonlyArray<PropertyKey>): string {
  let out = root;
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : `.${String(part)}`;
  return out;
}

function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && /received undefined/.test(issue.message)) return 'is required';
  if (issue.code === 'unrecognized_keys') return `unknown field(s): ${issue.keys.join(', ')}`;
  return issue.message;
}

/** Checks a node's config for its type; `root` is the config's field path (`nodes[2].config`). */
export function validateNodeConfig(type: NodeType, config: unknown, root: string): FieldIssue[] {
  const result = CONFIG_SCHEMAS[type].safeParse(config);
  if (!result.success) {
    return result.error.issues.map((issue) => {
      // An unknown key is reported on the key itself, so the caller sees which one.
      const path =
        issue.code === 'unrecognized_keys' && issue.keys.length === 1 ? [...issue.path, issue.keys[0]!] : issue.path;
      return { field: fieldPath(root, path), message: issueMessage(issue) };
    });
  }
  return checkConfigExpressions(type, result.data as Record<string, JsonValue>, root);
}

function tooLong(field: string, value: string): FieldIssue[] {
  return Buffer.byteLength(value, 'utf8') > LIMITS.maxExpressionBytes
    ? [{ field, message: `must be at most ${LIMITS.maxExpressionBytes} bytes` }]
    : [];
}

function expressionIssue(field: string, source: string): FieldIssue[] {
  const size = tooLong(field, source);
  if (size.length > 0) return size;
  const problem = checkExpression(source);
  return problem ? [{ field, message: `invalid expression: ${problem}` }] : [];
}

function templateIssues(field: string, value: JsonValue | undefined): FieldIssue[] {
  if (typeof value === 'string') {
    const size = tooLong(field, value);
    if (size.length > 0) return size;
    if ((value.match(/\{\{/g) ?? []).length !== (value.match(/\}\}/g) ?? []).length) {
      return [{ field, message: 'unbalanced {{ }} in template' }];
    }
    for (const source of templateExpressions(value)) {
      const issues = expressionIssue(field, source);
      if (issues.length > 0) return issues;
    }
    return [];
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => templateIssues(`${field}[${i}]`, v));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => templateIssues(`${field}.${k}`, v));
  }
  return [];
}

function checkConfigExpressions(type: NodeType, config: Record<string, JsonValue>, root: string): FieldIssue[] {
  switch (type) {
    case 'condition': {
      const rules = config.rules as Array<{ if?: string; goto?: string; else?: string }>;
      const issues: FieldIssue[] = [];
      let elses = 0;
      rules.forEach((rule, i) => {
        if (rule.if !== undefined) issues.push(...expressionIssue(`${root}.rules[${i}].if`, rule.if));
        if (rule.else !== undefined && ++elses > 1) {
          issues.push({ field: `${root}.rules[${i}].else`, message: 'a condition may have only one else' });
        }
      });
      return issues;
    }
    case 'transform': {
      const fields = (config.fields ?? {}) as Record<string, string>;
      return Object.entries(fields).flatMap(([name, source]) => expressionIssue(`${root}.fields.${name}`, source));
    }
    case 'agent':
      return [
        ...templateIssues(`${root}.message`, config.message),
        ...templateIssues(`${root}.session_id`, config.session_id),
      ];
    case 'integration': {
      if (!(INTEGRATION_SERVICES as readonly string[]).includes(config.service as string)) {
        return [
          {
            field: `${root}.service`,
            message: `unsupported service '${String(config.service)}' (supported: ${INTEGRATION_SERVICES.join(', ')})`,
          },
        ];
      }
      const url = config.url as string;
      const issues = templateIssues(`${root}.url`, url);
      if (issues.length === 0) issues.push(...checkUrl(`${root}.url`, url));
      return [
        ...issues,
        ...templateIssues(`${root}.headers`, config.headers),
        ...templateIssues(`${root}.body`, config.body),
      ];
    }
    case 'schedule': {
      const issues: FieldIssue[] = [];
      const problem = cronProblem(config.cron as string);
      if (problem) issues.push({ field: `${root}.cron`, message: `invalid cron expression: ${problem}` });
      if (typeof config.timezone === 'string' && !isTimezone(config.timezone)) {
        issues.push({ field: `${root}.timezone`, message: `unknown IANA timezone '${config.timezone}'` });
      }
      return issues;
    }
    case 'workflow':
      return templateIssues(`${root}.input`, config.input);
    case 'foreach':
      return expressionIssue(`${root}.items`, config.items as string);
    default:
      return [];
  }
}

/**
 * A static URL must be http(s); a template may fill only the path and query, so the origin its
 * header values are bound to is fixed (domain/sealed-headers.ts).
 */
function checkUrl(field: string, url: string): FieldIssue[] {
  const isTemplate = templateExpressions(url).length > 0;
  const origin = fixedOrigin(url);
  if (origin === undefined) {
    return [
      isTemplate
        ? {
            field,
            message:
              'templates may fill only the path and query: write the scheme, host and port out, followed by /, ? or #',
          }
        : { field, message: 'must be a valid http(s) URL' },
    ];
  }
  return origin.startsWith('http://') || origin.startsWith('https://')
    ? []
    : [{ field, message: 'must be an http(s) URL' }];
}
