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
  if (result.success) return result.data;
  const details: FieldIssue[] = result.error.issues.map((issue) => ({
    field: fieldPath(issue.path, root),
    message: issueMessage(issue, value),
  }));
  throw new ValidationError(details);
}

/** docs/design.md section 3: a JSON body nests at most this many levels of objects and arrays. */
export const MAX_JSON_DEPTH = 64;

/** C0 control characters (below U+0020): invisible in logs and consoles; NUL cannot be a MongoDB field name. */
function hasControlCharacter(key: string): boolean {
  for (let i = 0; i < key.length; i += 1) if (key.charCodeAt(i) < 0x20) return true;
  return false;
}

/**
 * The rule a key of a free-form object (metadata, execution input, hook bodies) breaks, if any.
 * They end up as MongoDB documents and as objects in every service: `__proto__` would reach an
 * object's prototype wherever a key is assigned, and a control character is either refused by the
 * database later (NUL, as an internal error) or hidden from whoever reads the key.
 */
export function keyRuleBroken(key: string): string | undefined {
  if (key === '__proto__') return 'is a reserved name (__proto__)';
  if (hasControlCharacter(key)) return 'must not contain a control character (U+0000 to U+001F)';
  return undefined;
}

/** A key as a field name can show it: control characters escaped (`\u0000`). */
export function printableKey(key: string): string {
  if (!hasControlCharacter(key)) return key;
  let out = '';
  for (const c of key) {
    const code = c.charCodeAt(0);
    out += code < 0x20 ? `\\u${code.toString(16).padStart(4, '0')}` : c;
  }
  return out;
}

/** An object or array met by the walk; the path is rebuilt from `parent` only for an error. */
interface Frame {
  value: object;
  depth: number;
  parent?: Frame;
  key?: PropertyKey;
}

function pathOf(frame: Frame): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let at: Frame | undefined = frame; at?.key !== undefined; at = at.parent) path.push(at.key);
  return path.reverse();
}

export function tooDeep(field: string): ValidationError {
  return new ValidationError(
    [{ field, message: `nests more than ${MAX_JSON_DEPTH} levels of objects and arrays` }],
    `JSON nests deeper than the limit of ${MAX_JSON_DEPTH} levels`,
  );
}

/**
 * Checks the depth (MAX_JSON_DEPTH) and the keys (keyRuleBroken) of a parsed value, naming the
 * first field that breaks a rule. One walk with an explicit stack: each object or array is visited
 * once and its path is never copied, so the cost is linear in the size of the value.
 */
export function assertStorableKeys(value: unknown, root?: string): void {
  if (value === null || typeof value !== 'object') return;
  const stack: Frame[] = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (frame.depth > MAX_JSON_DEPTH) throw tooDeep(fieldPath(pathOf(frame), root));
    const depth = frame.depth + 1;
    if (Array.isArray(frame.value)) {
      frame.value.forEach((item: unknown, index) => {
        if (item !== null && typeof item === 'object') stack.push({ value: item, depth, parent: frame, key: index });
      });
      continue;
    }
    for (const [key, item] of Object.entries(frame.value)) {
      const broken = keyRuleBroken(key);
      if (broken) throw ValidationError.field(fieldPath([...pathOf(frame), printableKey(key)], root), broken);
      if (item !== null && typeof item === 'object') stack.push({ value: item, depth, parent: frame, key });
    }
  }
}
