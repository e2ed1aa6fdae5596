import { z } from 'zod';
import { ValidationError, type FieldIssue } from '@agentplatform/service-kit';

/** `['nodes', 2, 'config', 'rules', 0, 'if']` -> `nodes[2].config.rules[0].if` */
export function fieldPath(path: ReadonlyArray<PropertyKey>, root?: string): string {
  let out = root ?? '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || root || 'body';
}

function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && /received undefined/.test(issue.message)) return 'is required';
  if (issue.code === 'unrecognized_keys') return `unknown field(s): ${issue.keys.join(', ')}`;
  return issue.message;
}

/** Parses a value through a schema; failures become a ValidationError naming every bad field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, root?: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details: FieldIssue[] = result.error.issues.map((issue) => ({
    field: fieldPath(issue.path, root),
    message: issueMessage(issue),
  }));
  throw new ValidationError(details);
}
