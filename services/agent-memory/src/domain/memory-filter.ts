import { ValidationError, type FieldIssue } from '@agentplatform/service-kit';

export const FILTER_OPERATORS = ['eq', 'ne', 'in', 'gt', 'gte', 'lt', 'lte', 'contains'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

export interface FilterClause {
  /** Dotted metadata path, split: `{"a.b": ...}` looks at metadata.a.b. */
  path: string[];
  op: FilterOperator;
  value: unknown;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Parses `filters`: each key is a metadata path; its value is either a plain value (equality) or
 * an object of operators, all of which must hold. Errors name `filters.<key>[.<op>]`.
 */
export function parseFilters(raw: Record<string, unknown> | undefined): FilterClause[] {
  if (!raw) return [];
  const issues: FieldIssue[] = [];
  const clauses: FilterClause[] = [];
  for (const [key, spec] of Object.entries(raw)) {
    const field = `filters.${key}`;
    const path = key.split('.');
    if (path.some((p) => p === '')) {
      issues.push({ field, message: 'is not a valid metadata path' });
      continue;
    }
    if (!isPlainObject(spec)) {
      clauses.push({ path, op: 'eq', value: spec });
      continue;
    }
    const ops = Object.entries(spec);
    if (ops.length === 0)
      issues.push({ field, message: `must name at least one operator (${FILTER_OPERATORS.join(', ')})` });
    for (const [op, value] of ops) {
      if (!(FILTER_OPERATORS as readonly string[]).includes(op)) {
        issues.push({
          field: `${field}.${op}`,
          message: `unknown operator; use one of ${FILTER_OPERATORS.join(', ')}`,
        });
        continue;
      }
      if (op === 'in' && !Array.isArray(value)) {
        issues.push({ field: `${field}.in`, message: 'must be an array' });
        continue;
      }
      if (['gt', 'gte', 'lt', 'lte'].includes(op) && typeof value !== 'number' && typeof value !== 'string') {
        issues.push({ field: `${field}.${op}`, message: 'must be a number or a string' });
        continue;
      }
      if (op === 'contains' && (value === null || isPlainObject(value) || Array.isArray(value))) {
        issues.push({ field: `${field}.contains`, message: 'must be a string, number or boolean' });
        continue;
      }
      clauses.push({ path, op: op as FilterOperator, value });
    }
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return clauses;
}

function lookup(metadata: Record<string, unknown>, path: string[]): unknown {
  let current: unknown = metadata;
  for (const part of path) {
    if (!isPlainObject(current)) return undefined;
    current = current[part];
  }
  return current;
}

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

function compare(actual: unknown, expected: unknown): number | undefined {
  if (typeof actual === 'number' && typeof expected === 'number') return actual - expected;
  if (typeof actual === 'string' && typeof expected === 'string')
    return actual < expected ? -1 : actual > expected ? 1 : 0;
  return undefined;
}

function holds(clause: FilterClause, actual: unknown): boolean {
  const { op, value } = clause;
  switch (op) {
    case 'eq':
      return equal(actual, value);
    case 'ne':
      return !equal(actual, value);
    case 'in':
      return (value as unknown[]).some((v) => equal(actual, v));
    case 'contains':
      if (Array.isArray(actual)) return actual.some((v) => equal(v, value));
      if (typeof actual === 'string') return actual.toLowerCase().includes(String(value).toLowerCase());
      return false;
    default: {
      const diff = compare(actual, value);
      if (diff === undefined) return false;
      return op === 'gt' ? diff > 0 : op === 'gte' ? diff >= 0 : op === 'lt' ? diff < 0 : diff <= 0;
    }
  }
}

/** True when every clause holds for the item's metadata. A missing key fails all but `ne`. */
export function matchesFilters(metadata: Record<string, unknown>, clauses: readonly FilterClause[]): boolean {
  for (const clause of clauses) {
    if (!holds(clause, lookup(metadata, clause.path))) return false;
  }
  return true;
}
