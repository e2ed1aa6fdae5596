import { SecretBox, type FieldIssue } from '@agentplatform/service-kit';

/**
 * Tool grants on an agent (`config.tools`, docs/design.md section 9). Grants are stored as given, except
 * that http and mcp header values are sealed at rest (SecretBox) and never returned: an answer
 * carries `header_names` instead of `headers`.
 */
export const TOOL_TYPES = ['memory_search', 'memory_add', 'workflow', 'http', 'mcp'] as const;
export type ToolType = (typeof TOOL_TYPES)[number];

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export const TOOL_LIMITS = {
  grants: 32,
  description: 1_000,
  url: 2_000,
  headers: 20,
  headerValue: 4_096,
  allowedTools: 100,
  schemaChars: 20_000,
  maxSteps: 32,
  defaultMaxSteps: 8,
  minTimeoutMs: 100,
  maxTimeoutMs: 120_000,
  defaultTimeoutMs: 30_000,
  /** Tool calls run per model round; the model's further calls of that round get an error result. */
  callsPerRound: 8,
} as const;

/**
 * Bounds of a remote MCP server (docs/security.md), enforced while its answers are read: a JSON
 * answer, or one event of an SSE answer (and so each of its lines), of at most `messageBytes`;
 * every exchange and every listing or call (connection included) within `callMs` (or the
 * agent's shorter tool timeout); a `tools/list` of more than `tools` tools is refused.
 */
export const MCP_LIMITS = {
  messageBytes: 1024 * 1024,
  callMs: 30_000,
  tools: 128,
} as const;

/** What OpenAI-compatible providers accept as a function name. */
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** MCP server names: tool names are `<server>__<tool>`, so a server name has no `__` itself. */
const SERVER_NAME = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;
/** HTTP token characters, minus `.` and `$`, which stored field names cannot safely hold. */
const HEADER_NAME = /^[!#%&'*+^_`|~0-9A-Za-z-]{1,100}$/;

export type JsonSchemaObject = Record<string, unknown> & { type: 'object' };

export interface MemorySearchGrant {
  type: 'memory_search';
}
export interface MemoryAddGrant {
  type: 'memory_add';
}
export interface WorkflowGrant {
  type: 'workflow';
  workflow_id: string;
  name?: string;
  description?: string;
  input_schema?: JsonSchemaObject;
}
export interface HttpGrant {
  type: 'http';
  name: string;
  description: string;
  url: string;
  method: HttpMethod;
  /** Header name -> value; sealed values at rest. */
  headers?: Record<string, string>;
  input_schema?: JsonSchemaObject;
}
export interface McpGrant {
  type: 'mcp';
  name: string;
  server_url: string;
  headers?: Record<string, string>;
  allowed_tools?: string[];
}
export type ToolGrant = MemorySearchGrant | MemoryAddGrant | WorkflowGrant | HttpGrant | McpGrant;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The tool name the model sees for a workflow grant without a name. */
export function workflowToolName(grant: WorkflowGrant): string {
  return grant.name ?? `workflow_${grant.workflow_id.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, 64);
}

/** The name a grant's tool (or, for mcp, its tools' prefix) has; memory grants are named by type. */
export function grantName(grant: ToolGrant): string {
  if (grant.type === 'memory_search' || grant.type === 'memory_add') return grant.type;
  if (grant.type === 'workflow') return workflowToolName(grant);
  return grant.name;
}

/** `{{args.x}}` placeholders of an http grant's URL. */
export const URL_PLACEHOLDER = /\{\{\s*args\.([A-Za-z0-9_]+)\s*\}\}/g;

/** The scheme and authority of a URL (template): what `{{args.x}}` may never fill. */
const URL_HEAD = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

function checkUrl(value: unknown, field: string, issues: FieldIssue[], template: boolean): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > TOOL_LIMITS.url) {
    issues.push({ field, message: `must be an http(s) URL of at most ${TOOL_LIMITS.url} characters` });
    return undefined;
  }
  // The origin is what header values are sealed to, so the model's arguments must not choose it.
  if (template && (URL_HEAD.exec(value)?.[0] ?? value).includes('{{')) {
    issues.push({ field, message: '{{args.x}} may fill the path and query only, never the scheme, host or port' });
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(template ? value.replace(URL_PLACEHOLDER, 'x') : value);
  } catch {
    issues.push({ field, message: 'must be an absolute http(s) URL' });
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    issues.push({ field, message: 'must be an http(s) URL' });
    return undefined;
  }
  if (url.username || url.password) {
    issues.push({ field, message: 'must not carry credentials; use headers' });
    return undefined;
  }
  return value;
}

/**
 * Schemas are stored as documents: `$schema` (a meta annotation) is dropped, other `$` keys
 * (`$ref`, `$defs`) and dotted names are refused, since stored field names cannot hold them.
 */
function storableSchema(value: unknown): { schema?: unknown; problem?: string } {
  if (Array.isArray(value)) {
    const items = value.map(storableSchema);
    const bad = items.find((i) => i.problem);
    return bad ? bad : { schema: items.map((i) => i.schema) };
  }
  if (!isObject(value)) return { schema: value };
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === '$schema') continue;
    if (key.startsWith('$')) return { problem: `${key} is not supported: inline the referenced schema` };
    if (key.includes('.')) return { problem: `the name "${key}" must not contain "."` };
    const inner = storableSchema(item);
    if (inner.problem) return inner;
    out[key] = inner.schema;
  }
  return { schema: out };
}

function checkSchema(raw: unknown, field: string, issues: FieldIssue[]): JsonSchemaObject | undefined {
  if (raw === undefined) return undefined;
  const storable = storableSchema(raw);
  if (storable.problem) {
    issues.push({ field, message: storable.problem });
    return undefined;
  }
  const value = storable.schema;
  const problem = (() => {
    if (!isObject(value)) return 'must be a JSON Schema object';
    if (value.type !== 'object') return 'must be a JSON Schema with type "object"';
    if (value.properties !== undefined && !isObject(value.properties)) return 'properties must be an object';
    if (isObject(value.properties)) {
      for (const [key, sub] of Object.entries(value.properties)) {
        if (!isObject(sub) && typeof sub !== 'boolean') return `properties.${key} must be a schema`;
      }
    }
    if (
      value.required !== undefined &&
      !(Array.isArray(value.required) && value.required.every((r) => typeof r === 'string'))
    )
      return 'required must be an array of strings';
    if (JSON.stringify(value).length > TOOL_LIMITS.schemaChars)
      return `must be at most ${TOOL_LIMITS.schemaChars} characters as JSON`;
    return undefined;
  })();
  if (problem) {
    issues.push({ field, message: problem });
    return undefined;
  }
  return value as JsonSchemaObject;
}

function checkHeaders(value: unknown, field: string, issues: FieldIssue[]): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) {
    issues.push({ field, message: 'must be an object of header name to string value' });
    return undefined;
  }
  const entries = Object.entries(value);
  if (entries.length > TOOL_LIMITS.headers)
    issues.push({ field, message: `must have at most ${TOOL_LIMITS.headers} headers` });
  const out: Record<string, string> = {};
  for (const [name, v] of entries) {
    if (!HEADER_NAME.test(name)) issues.push({ field: `${field}.${name}`, message: 'is not a valid header name' });
    else if (typeof v !== 'string' || v.length > TOOL_LIMITS.headerValue || /[\r\n\0]/.test(v))
      issues.push({
        field: `${field}.${name}`,
        message: `must be a string of at most ${TOOL_LIMITS.headerValue} characters without line breaks`,
      });
    else out[name] = v;
  }
  return out;
}

function optionalText(
  raw: Record<string, unknown>,
  key: string,
  field: string,
  max: number,
  issues: FieldIssue[],
): string | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > max) {
    issues.push({ field: `${field}.${key}`, message: `must be a string of at most ${max} characters` });
    return undefined;
  }
  return value;
}

function checkName(value: unknown, field: string, issues: FieldIssue[], pattern = TOOL_NAME): string | undefined {
  if (typeof value !== 'string' || !pattern.test(value) || value.length > 64) {
    issues.push({
      field,
      message:
        pattern === TOOL_NAME
          ? 'must be 1 to 64 characters of [A-Za-z0-9_-]'
          : 'must be 1 to 64 characters of [A-Za-z0-9_-] without "__"',
    });
    return undefined;
  }
  return value;
}

/** One grant, checked; undefined (with issues) when it is wrong. */
function validateGrant(raw: unknown, field: string, issues: FieldIssue[]): ToolGrant | undefined {
  if (!isObject(raw)) {
    issues.push({ field, message: 'must be an object with a type' });
    return undefined;
  }
  const before = issues.length;
  switch (raw.type) {
    case 'memory_search':
    case 'memory_add':
      return { type: raw.type };
    case 'workflow': {
      const workflowId = raw.workflow_id;
      if (typeof workflowId !== 'string' || workflowId.trim() === '' || workflowId.length > 100)
        issues.push({ field: `${field}.workflow_id`, message: 'must be the id of a workflow of this tenant' });
      const name = raw.name === undefined ? undefined : checkName(raw.name, `${field}.name`, issues);
      const description = optionalText(raw, 'description', field, TOOL_LIMITS.description, issues);
      const schema = checkSchema(raw.input_schema, `${field}.input_schema`, issues);
      if (issues.length > before) return undefined;
      return {
        type: 'workflow',
        workflow_id: String(workflowId),
        ...(name ? { name } : {}),
        ...(description ? { description } : {}),
        ...(schema ? { input_schema: schema } : {}),
      };
    }
    case 'http': {
      const name = checkName(raw.name, `${field}.name`, issues);
      const description = optionalText(raw, 'description', field, TOOL_LIMITS.description, issues);
      const url = checkUrl(raw.url, `${field}.url`, issues, true);
      const method = raw.method === undefined ? 'POST' : String(raw.method).toUpperCase();
      if (!(HTTP_METHODS as readonly string[]).includes(method))
        issues.push({ field: `${field}.method`, message: `must be one of ${HTTP_METHODS.join(', ')}` });
      const headers = checkHeaders(raw.headers, `${field}.headers`, issues);
      const schema = checkSchema(raw.input_schema, `${field}.input_schema`, issues);
      if (issues.length > before) return undefined;
      return {
        type: 'http',
        name: name!,
        description: description ?? '',
        url: url!,
        method: method as HttpMethod,
        ...(headers ? { headers } : {}),
        ...(schema ? { input_schema: schema } : {}),
      };
    }
    case 'mcp': {
      const name = checkName(raw.name, `${field}.name`, issues, SERVER_NAME);
      const serverUrl = checkUrl(raw.server_url, `${field}.server_url`, issues, false);
      const headers = checkHeaders(raw.headers, `${field}.headers`, issues);
      let allowed: string[] | undefined;
      if (raw.allowed_tools !== undefined) {
        if (
          !Array.isArray(raw.allowed_tools) ||
          raw.allowed_tools.length > TOOL_LIMITS.allowedTools ||
          !raw.allowed_tools.every((t) => typeof t === 'string' && t.length > 0 && t.length <= 128)
        )
          issues.push({
            field: `${field}.allowed_tools`,
            message: `must be an array of at most ${TOOL_LIMITS.allowedTools} tool names`,
          });
        else allowed = [...new Set(raw.allowed_tools as string[])];
      }
      if (issues.length > before) return undefined;
      return {
        type: 'mcp',
        name: name!,
        server_url: serverUrl!,
        ...(headers ? { headers } : {}),
        ...(allowed ? { allowed_tools: allowed } : {}),
      };
    }
    default:
      issues.push({ field: `${field}.type`, message: `must be one of ${TOOL_TYPES.join(', ')}` });
      return undefined;
  }
}

/** Checks `config.tools`: every wrong grant is reported with its field; names must be unique. */
export function validateTools(raw: unknown, issues: FieldIssue[]): ToolGrant[] | undefined {
  if (!Array.isArray(raw) || raw.length > TOOL_LIMITS.grants) {
    issues.push({ field: 'config.tools', message: `must be an array of at most ${TOOL_LIMITS.grants} tool grants` });
    return undefined;
  }
  const before = issues.length;
  const grants = raw.map((g, i) => validateGrant(g, `config.tools[${i}]`, issues));
  const seen = new Map<string, number>();
  grants.forEach((grant, i) => {
    if (!grant) return;
    const name = grantName(grant);
    if (seen.has(name)) {
      const field = grant.type === 'memory_search' || grant.type === 'memory_add' ? 'type' : 'name';
      issues.push({
        field: `config.tools[${i}].${field}`,
        message: `repeats the tool name "${name}" of config.tools[${seen.get(name)}]`,
      });
    } else seen.set(name, i);
  });
  return issues.length > before ? undefined : (grants as ToolGrant[]);
}

/** A grant as answers show it: header names, never their values. */
export function publicGrant(grant: ToolGrant): Record<string, unknown> {
  if ((grant.type === 'http' || grant.type === 'mcp') && grant.headers) {
    const { headers, ...rest } = grant;
    return { ...rest, header_names: Object.keys(headers) };
  }
  return { ...grant };
}

/** The origin (scheme://host:port) a grant's requests go to; a URL template never changes it. */
export function grantOrigin(grant: HttpGrant | McpGrant): string {
  return new URL(grant.type === 'http' ? grant.url.replace(URL_PLACEHOLDER, 'x') : grant.server_url).origin;
}

/**
 * The sealing context of one header value: a value copied to another agent, grant or origin does
 * not open, so stored credentials never follow a URL to another host.
 */
export function headerContext(agentId: string, grant: HttpGrant | McpGrant, header: string): string {
  return `agent:${agentId}:tool:${grant.type}:${grant.name}:origin:${grantOrigin(grant)}:header:${header.toLowerCase()}`;
}

/** The context header values were sealed with before they were bound to the origin (re-sealed on start). */
export function unboundHeaderContext(agentId: string, grant: HttpGrant | McpGrant, header: string): string {
  return `agent:${agentId}:tool:${grant.type}:${grant.name}:header:${header.toLowerCase()}`;
}

/** The data key ids an agent's sealed header values name, sorted (what re-sealing looks for). */
export function sealedKeyIds(grants: readonly ToolGrant[] | undefined): string[] {
  const ids = new Set<string>();
  for (const grant of grants ?? []) {
    if (grant.type !== 'http' && grant.type !== 'mcp') continue;
    for (const sealed of Object.values(grant.headers ?? {})) {
      const kid = SecretBox.keyIdOf(sealed);
      if (kid) ids.add(kid);
    }
  }
  return [...ids].sort();
}
