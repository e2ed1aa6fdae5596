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

function valueAt(root: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let value = root;
  for (const part of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[part];
  }
  return value;
}

function issueMessage(issue: z.core.$ZodIssue, input: unknown): string {
  // A custom message (e.g. "must be a valid e-mail address") would hide that the field is simply absent.
  if (
    issue.code === 'invalid_type' &&
    (/received undefined/.test(issue.message) || valueAt(input, issue.path) === undefined)
  ) {
    return 'is required';
  }
  if (issue.code === 'unrecognized_keys') return `unknown field(s): ${issue.keys.join(', ')}`;
  return issue.message;
}

/** Parses a value through a schema; failures become a ValidationError naming every bad field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, root?: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) {
    assertStorableKeys(result.data, root);
    return result.data;
  }
  const details: FieldIssue[] = result.error.issues.map((issue) => ({
    field: fieldPath(issue.path, root),
    message: issueMessage(issue, value),
  }));
  throw new ValidationError(details);
}

/**
 * Free-form objects (metadata, execution input, hook bodies) end up as MongoDB documents, whose
 * field names cannot hold a NUL character: refuse such a key here, naming it, rather than let the
 * database refuse the write later as an internal error.
 */
export function assertStorableKeys(value: unknown, root?: string): void {
  const stack: Array<{ value: unknown; path: PropertyKey[] }> = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: current, path } = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (Array.isArray(current)) {
      current.forEach((item, index) => stack.push({ value: item, path: [...path, index] }));
      continue;
    }
    for (const [key, item] of Object.entries(current)) {
      if (key.includes('\u0000')) {
        throw ValidationError.field(
          fieldPath([...path, key.replaceAll('\u0000', '\\u0000')], root),
          'must not contain a NUL character',
        );
      }
      stack.push({ value: item, path: [...path, key] });
    }
  }
}
