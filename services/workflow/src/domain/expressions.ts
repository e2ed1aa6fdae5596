import {
  celEnv,
  isCelError,
  isCelList,
  isCelMap,
  isCelUint,
  parse,
  plan,
  type CelInput,
  type CelValue,
} from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import type { JsonObject, JsonValue } from './workflow.types.js';

/**
 * CEL (docs/design.md section 7) behind one small module, so the implementation can be swapped.
 * Expressions cannot loop or reach the host, unlike user-written JavaScript.
 *
 * Numbers: JSON has one number type, CEL has int and double and refuses to mix them in arithmetic.
 * Whole JSON numbers are bound as CEL ints and the rest as doubles, which makes the common cases
 * (`input.count + 1`, `input.price * 1.2`) work; `double(x)` or `int(x)` converts explicitly.
 */

const ENV = celEnv({ funcs: strings });

/** Names the evaluation environment binds; a previous output's field never shadows them. */
const RESERVED = new Set([
  'input',
  'nodes',
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

type Program = (bindings: Record<string, CelInput>) => CelValue;

export class ExpressionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExpressionError';
  }
}

/**
 * An expression built a value beyond what the engine can hold (a string or list past V8's maximum
 * length): a resource limit, like the time budget, and never "not matched" in a condition.
 */
export class ExpressionResourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExpressionResourceError';
  }
}

const RESOURCE_EXHAUSTED = /Invalid (string|array|typed array) length|Array buffer allocation failed/;

/**
 * Bounds the caches below: workflows run the same few expressions over and over. (Hand-written
 * rather than lru-cache, which this service does not depend on yet; the oldest entry goes first.)
 */
const CACHE_LIMIT = 5_000;

function remember<V>(cache: Map<string, V>, key: string, value: V): V {
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(key, value);
  return value;
}

/** Compiled programs by source text. */
const programs = new Map<string, Program>();

function compile(source: string): Program {
  const cached = programs.get(source);
  if (cached) return cached;
  let program: Program;
  try {
    program = plan(ENV, parse(source)) as Program;
  } catch (error) {
    throw new ExpressionError(cleanMessage(error));
  }
  return remember(programs, source, program);
}

function failure(message: string): Error {
  return RESOURCE_EXHAUSTED.test(message) ? new ExpressionResourceError(message) : new ExpressionError(message);
}

function cleanMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^<input>:/, 'at ');
}

/**
 * A static cost bound (docs/workflow-nodes.md, expression budget): an expression of at most
 * INLINE_MAX_BYTES bytes and INLINE_MAX_NODES syntax nodes, with no macro (`all`, `exists`, `map`,
 * `filter`: the only iteration in CEL) and calling only operators, `size` and conversions, does at
 * most a few passes over values no larger than the 1 MB hook body: milliseconds at worst. Such
 * expressions may be evaluated in the service's thread; everything else goes to the sandbox.
 */
export const INLINE_MAX_BYTES = 200;
const INLINE_MAX_NODES = 24;
const INLINE_FUNCTIONS = new Set([
  '_&&_',
  '_||_',
  '!_',
  '-_',
  '_?_:_',
  '_==_',
  '_!=_',
  '_<_',
  '_<=_',
  '_>_',
  '_>=_',
  '_+_',
  '_-_',
  '_*_',
  '_/_',
  '_%_',
  '_[_]',
  '@in',
  'size',
  'int',
  'uint',
  'double',
  'string',
  'bool',
]);
const inlineSafe = new Map<string, boolean>();

export function isInlineSafe(source: string): boolean {
  const known = inlineSafe.get(source);
  if (known !== undefined) return known;
  let safe = false;
  if (source.length <= INLINE_MAX_BYTES) {
    try {
      safe = boundedNodes(parse(source).expr, { left: INLINE_MAX_NODES });
    } catch {
      safe = false;
    }
  }
  return remember(inlineSafe, source, safe);
}

/** A parsed expression's syntax tree (@bufbuild/cel's Expr message). */
type Expr = ReturnType<typeof parse>['expr'];

function boundedNodes(node: Expr | undefined, budget: { left: number }): boolean {
  if (!node) return true;
  if (--budget.left < 0) return false;
  const kind = node.exprKind;
  switch (kind.case) {
    case 'constExpr':
    case 'identExpr':
      return true;
    case 'selectExpr':
      return boundedNodes(kind.value.operand, budget);
    case 'callExpr':
      if (!INLINE_FUNCTIONS.has(kind.value.function)) return false;
      return [kind.value.target, ...kind.value.args].every((arg) => boundedNodes(arg, budget));
    case 'listExpr':
      return kind.value.elements.every((e) => boundedNodes(e, budget));
    case 'structExpr':
      return kind.value.entries.every(
        (e) => (e.keyKind.case !== 'mapKey' || boundedNodes(e.keyKind.value, budget)) && boundedNodes(e.value, budget),
      );
    default:
      // Comprehensions (macros) and anything unknown.
      return false;
  }
}

/**
 * The names an expression reads from its scope: top-level identifiers, and which `nodes.<id>`
 * (all of them when `nodes` is used otherwise). Only these are converted for CEL and sent to a
 * sandbox thread, not every earlier output (issue 34: a run of many large outputs converted all
 * of them for each node). Found by a linear scan of the source, not a parse (a 4 KB expression
 * takes tens of ms to parse, which the service's thread must not spend on a sandboxed one): it
 * may count more names than are read (words in strings, fields, macro variables), and binding a
 * name that is not read costs only its conversion.
 */
interface Reads {
  names: Set<string>;
  nodes: Set<string> | 'all';
}

const IDENTIFIERS = /[A-Za-z_][A-Za-z0-9_]*/g;
const NODE_SELECTS = /\bnodes\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)/g;
const NODES_USES = /\bnodes\b/g;

const readsBySource = new Map<string, Reads>();

function readsOf(source: string): Reads {
  const known = readsBySource.get(source);
  if (known) return known;
  const names = new Set(source.match(IDENTIFIERS) ?? []);
  let nodes: Reads['nodes'] = new Set();
  if (names.has('nodes')) {
    const selected = [...source.matchAll(NODE_SELECTS)].map((m) => m[1]!);
    nodes = selected.length < (source.match(NODES_USES)?.length ?? 0) ? 'all' : new Set(selected);
  }
  return remember(readsBySource, source, { names, nodes });
}

/**
 * The part of a scope these expressions read (readsOf): what a sandbox thread is sent, and what
 * is converted for CEL.
 */
export function narrowScope(scope: ExpressionScope, sources: string[]): ExpressionScope {
  const names = new Set<string>();
  let nodes: Set<string> | 'all' = new Set();
  for (const source of sources) {
    const reads = readsOf(source);
    for (const name of reads.names) names.add(name);
    if (reads.nodes === 'all' || nodes === 'all') nodes = 'all';
    else for (const id of reads.nodes) nodes.add(id);
  }
  const previous: JsonObject = {};
  for (const [key, value] of Object.entries(scope.previous)) if (names.has(key)) previous[key] = value;
  const narrowed: Record<string, JsonObject> = {};
  if (nodes !== 'all') for (const id of nodes) if (id in scope.nodes) narrowed[id] = scope.nodes[id]!;
  return {
    input: names.has('input') ? scope.input : {},
    nodes: nodes === 'all' ? scope.nodes : narrowed,
    previous,
  };
}

/** Why an expression does not parse, or undefined when it does. */
export function checkExpression(source: string): string | undefined {
  if (source.trim() === '') return 'expression is empty';
  try {
    compile(source);
    return undefined;
  } catch (error) {
    return error instanceof ExpressionError ? error.message : String(error);
  }
}

/** What expressions see: `input`, `nodes.<id>`, and the previous node's output fields at top level. */
export interface ExpressionScope {
  input: JsonObject;
  nodes: Record<string, JsonObject>;
  previous: JsonObject;
}

function bindings(scope: ExpressionScope): Record<string, CelInput> {
  const bound: Record<string, CelInput> = {};
  for (const [key, value] of Object.entries(scope.previous)) {
    if (IDENTIFIER.test(key) && !RESERVED.has(key)) bound[key] = toCel(value);
  }
  bound.input = toCel(scope.input);
  bound.nodes = toCel(scope.nodes as JsonObject);
  return bound;
}

/** Evaluates one expression to JSON; throws ExpressionError when it cannot be evaluated. */
export function evaluate(source: string, scope: ExpressionScope): JsonValue {
  return evaluateBound(source, bindings(narrowScope(scope, [source])));
}

function evaluateBound(source: string, bound: Record<string, CelInput>): JsonValue {
  const program = compile(source);
  let result: CelValue;
  try {
    result = program(bound);
  } catch (error) {
    throw failure(cleanMessage(error));
  }
  if (isCelError(result)) throw failure(cleanMessage(result));
  return fromCel(result);
}

/**
 * Evaluates these expressions (and only these) over the same scope: binds once what they read.
 */
export function evaluator(scope: ExpressionScope, sources: string[]): (source: string) => JsonValue {
  const bound = bindings(narrowScope(scope, sources));
  return (source) => evaluateBound(source, bound);
}

const TEMPLATE_PART = /\{\{([\s\S]*?)\}\}/g;

/** The CEL expressions inside a template's `{{ }}` parts. */
export function templateExpressions(template: string): string[] {
  return [...template.matchAll(TEMPLATE_PART)].map((m) => m[1]!.trim());
}

/**
 * Renders a template. A template that is exactly one `{{ expr }}` yields the value itself (an
 * object stays an object); otherwise each part is replaced by its text (objects as JSON).
 */
export function renderTemplate(template: string, evaluateOne: (source: string) => JsonValue): JsonValue {
  const whole = /^\s*\{\{([\s\S]*?)\}\}\s*$/.exec(template);
  if (whole && !whole[1]!.includes('{{')) return evaluateOne(whole[1]!.trim());
  return template.replace(TEMPLATE_PART, (_, source: string) => asText(evaluateOne(source.trim())));
}

/** Renders every string inside a JSON value as a template. */
export function renderDeep(value: JsonValue, evaluateOne: (source: string) => JsonValue): JsonValue {
  if (typeof value === 'string') return renderTemplate(value, evaluateOne);
  if (Array.isArray(value)) return value.map((v) => renderDeep(v, evaluateOne));
  if (value !== null && typeof value === 'object') {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) out[k] = renderDeep(v, evaluateOne);
    return out;
  }
  return value;
}

export function asText(value: JsonValue): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

function toCel(value: JsonValue): CelInput {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(toCel);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, CelInput> = {};
    for (const [k, v] of Object.entries(value)) out[k] = toCel(v);
    return out as CelInput;
  }
  return value;
}

function fromCel(value: CelValue): JsonValue {
  switch (typeof value) {
    case 'bigint':
      return Number(value);
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'string':
    case 'boolean':
      return value;
    default:
      break;
  }
  if (value === null || value === undefined) return null;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (isCelUint(value)) return Number(value.value);
  if (isCelList(value)) return [...value].map(fromCel);
  if (isCelMap(value)) {
    const out: JsonObject = {};
    for (const [k, v] of value) out[String(isCelUint(k) ? k.value : k)] = fromCel(v);
    return out;
  }
  const message = (value as { message?: { $typeName?: string; seconds?: bigint; nanos?: number } }).message;
  if (message?.$typeName === 'google.protobuf.Timestamp') {
    const ms = Number(message.seconds ?? 0n) * 1000 + Math.floor((message.nanos ?? 0) / 1e6);
    return new Date(ms).toISOString();
  }
  if (message?.$typeName === 'google.protobuf.Duration') {
    return `${Number(message.seconds ?? 0n) + (message.nanos ?? 0) / 1e9}s`;
  }
  return String(value);
}
