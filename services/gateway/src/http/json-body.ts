import type { Context, Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { DomainError, ValidationError } from '@agentplatform/service-kit';
import { MAX_JSON_DEPTH, assertStorableKeys, fieldPath, keyRuleBroken, printableKey, tooDeep } from './validation.js';

/** The content types read as JSON (koa-body's defaults). */
export const JSON_TYPES = [
  'application/json',
  'application/json-patch+json',
  'application/vnd.api+json',
  'application/csp-report',
  'application/reports+json',
];

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const PROTO = '__proto__';

/**
 * Checks JSON text before it is parsed, in one pass over its characters with no allocation per
 * value: its depth (MAX_JSON_DEPTH: throws at the first level too deep, so a megabyte of
 * `[[[[...` is refused in microseconds, where JSON.parse would take about 200 ms of the shared
 * event loop and every later walk as much again), and its keys (keyRuleBroken: answers the first
 * key that breaks a rule, to be thrown once the text is known to be JSON at all). The path of
 * the current value is kept per level (the key or array index), so a refused key is named
 * without a second walk. Only valid JSON gets meaningful answers; invalid JSON fails to parse.
 */
function scanJsonText(text: string): ValidationError | undefined {
  const levels = MAX_JSON_DEPTH + 1;
  const isArray = new Uint8Array(levels);
  const index = new Uint32Array(levels);
  const keyStart = new Int32Array(levels);
  const keyEnd = new Int32Array(levels);
  let depth = 0;
  let inString = false;
  let stringStart = 0;
  let stringEscaped = false;
  let lastStart = -1;
  let lastEnd = -1;
  let lastEscaped = false;
  let refused: ValidationError | undefined;

  const keyAt = (start: number, end: number, escaped: boolean): string =>
    escaped ? (JSON.parse(text.slice(start, end + 1)) as string) : text.slice(start + 1, end);
  const pathTo = (key: string): PropertyKey[] => {
    const path: PropertyKey[] = [];
    for (let level = 1; level < depth; level += 1) {
      path.push(isArray[level] ? index[level]! : keyAt(keyStart[level]!, keyEnd[level]!, true));
    }
    path.push(printableKey(key));
    return path;
  };

  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) {
        stringEscaped = true;
        i += 1;
      } else if (c === QUOTE) {
        inString = false;
        lastStart = stringStart;
        lastEnd = i;
        lastEscaped = stringEscaped;
      }
      continue;
    }
    switch (c) {
      case QUOTE:
        inString = true;
        stringStart = i;
        stringEscaped = false;
        break;
      case COLON:
        // In valid JSON the string right before a colon is a key of the object at this depth.
        keyStart[depth] = lastStart;
        keyEnd[depth] = lastEnd;
        // An unescaped key holds no control character (JSON forbids them raw in strings).
        if (!refused && (lastEscaped || lastEnd - lastStart - 1 === PROTO.length)) {
          const key = keyAt(lastStart, lastEnd, lastEscaped);
          const broken = keyRuleBroken(key);
          if (broken) refused = ValidationError.field(fieldPath(pathTo(key)), broken);
        }
        break;
      case COMMA:
        if (isArray[depth]) index[depth] += 1;
        break;
      case OPEN_BRACE:
      case OPEN_BRACKET:
        depth += 1;
        if (depth > MAX_JSON_DEPTH) throw tooDeep('body');
        isArray[depth] = c === OPEN_BRACKET ? 1 : 0;
        index[depth] = 0;
        break;
      case CLOSE_BRACE:
      case CLOSE_BRACKET:
        depth -= 1;
        break;
      default:
    }
  }
  return refused;
}

function malformed(): DomainError {
  return new DomainError('validation_error', 'Malformed JSON body', [{ field: 'body', message: 'is not valid JSON' }]);
}

/**
 * Parses a JSON body that the body parser read as text (app.ts): its depth and keys are checked
 * on the raw text (scanJsonText), then it is parsed, before any route, hook or idempotency check
 * reads it. Only an object or an array is a body; an empty body is `{}`.
 * A key the API refuses is named with its rule, not reported as malformed JSON.
 */
export function parseJsonBody(text: string): unknown {
  const first = text.search(/\S/);
  if (first === -1) return {};
  if (text[first] !== '{' && text[first] !== '[') throw malformed();
  const refused = scanJsonText(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw malformed();
  }
  if (refused) throw refused;
  return value;
}

const BODY_LIMIT = '1mb';

/** koa-body reads JSON bodies as text (bounded to 1 MiB) for parseJsonBody, and parses forms (qs: 5 levels at most). */
const readRawBody = koaBody({
  json: false,
  urlencoded: true,
  text: true,
  textTypes: JSON_TYPES,
  multipart: false,
  textLimit: BODY_LIMIT,
  formLimit: BODY_LIMIT,
  parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
});

/**
 * Reads the request's body and checks it (depth and keys in linear time, JSON and forms under the
 * same key rules) into `ctx.request.body`. A route calls it once the request is admitted (its
 * address budget, its credentials, its content type, a hook's id): reading a megabyte is the
 * costly part of a hostile request, so a request refused on what its headers say never has its
 * body read (docs/security.md, "Limits on hostile input").
 */
export async function readBody(ctx: Context): Promise<void> {
  await readRawBody(ctx, async () => undefined);
  const request = ctx.request as { body?: unknown };
  if (typeof request.body === 'string' && ctx.is(JSON_TYPES)) request.body = parseJsonBody(request.body);
  else assertStorableKeys(request.body);
}

/**
 * An answer sent while its request's body is still unread closes the connection: to reuse it,
 * Node would first read (and drop) the rest of that body, up to the megabyte a client announced.
 */
export function closeWhenBodyUnread(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      if (!ctx.req.complete) ctx.set('Connection', 'close');
    }
  };
}
