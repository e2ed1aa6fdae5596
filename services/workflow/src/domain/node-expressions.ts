import {
  ExpressionError,
  asText,
  evaluator,
  renderDeep,
  renderTemplate,
  templateExpressions,
  type ExpressionScope,
} from './expressions.js';
import type { JsonObject, JsonValue, WorkflowNode } from './workflow.types.js';

/**
 * Everything a node computes from CEL, as one pure function of the node and its scope: what the
 * expression sandbox runs (engine/expression-sandbox.ts), away from the service's event loop.
 *
 * - condition: `{branch, goto, evaluations}`;
 * - transform: the computed fields (or the previous output without `fields`);
 * - agent: `{message, session_id?}` rendered from their templates;
 * - integration: `{url, headers, body}` rendered from their templates.
 *
 * Throws ExpressionError when an expression cannot be evaluated (a condition rule never does: it
 * counts as not matched).
 */
export function computeNode(
  node: WorkflowNode,
  scope: ExpressionScope,
  onExpression: (source: string) => void = () => undefined,
): JsonObject {
  const bound = evaluator(scope, nodeExpressions(node));
  const evaluateOne = (source: string): JsonValue => {
    onExpression(source);
    return bound(source);
  };
  const config = node.config;
  switch (node.type) {
    case 'condition':
      return evaluateCondition(config.rules as ConditionRule[], evaluateOne);
    case 'transform': {
      const fields = config.fields as Record<string, string> | undefined;
      if (!fields) return scope.previous;
      const out: JsonObject = {};
      for (const [name, source] of Object.entries(fields)) out[name] = evaluateOne(source);
      return out;
    }
    case 'agent':
      return {
        message:
          typeof config.message === 'string'
            ? asText(renderTemplate(config.message, evaluateOne))
            : JSON.stringify(scope.previous),
        ...(typeof config.session_id === 'string'
          ? { session_id: asText(renderTemplate(config.session_id, evaluateOne)) }
          : {}),
      };
    case 'integration':
      return {
        url: asText(renderTemplate(String(config.url), evaluateOne)),
        headers: Object.fromEntries(
          Object.entries((config.headers ?? {}) as Record<string, string>).map(([k, v]) => [
            k,
            asText(renderTemplate(v, evaluateOne)),
          ]),
        ),
        body: config.body === undefined ? scope.previous : renderDeep(config.body, evaluateOne),
      };
    case 'workflow':
      // The child's input: the rendered template(s), or the previous node's output.
      if (config.input === undefined) return { input: scope.previous };
      if (typeof config.input === 'string') return { input: renderTemplate(config.input, evaluateOne) };
      return { input: renderDeep(config.input, evaluateOne) };
    case 'foreach':
      return { items: evaluateOne(String(config.items)) };
    default:
      return scope.previous;
  }
}

export interface ConditionRule {
  if?: string;
  goto?: string;
  else?: string;
}

/** The first rule whose `if` is true wins, else the `else`. */
function evaluateCondition(rules: ConditionRule[], evaluateOne: (source: string) => JsonValue): JsonObject {
  const evaluations: JsonObject[] = [];
  for (const [i, rule] of rules.entries()) {
    if (rule.if === undefined) continue;
    try {
      const result = evaluateOne(rule.if);
      if (typeof result !== 'boolean') {
        evaluations.push({
          rule: i,
          if: rule.if,
          matched: false,
          reason: `did not evaluate to a bool (got ${asText(result)})`,
        });
        continue;
      }
      evaluations.push({ rule: i, if: rule.if, matched: result });
      if (result) return { branch: `rules[${i}]`, goto: rule.goto!, evaluations };
    } catch (error) {
      // A rule that cannot be evaluated on the data at hand (missing field, type mismatch) is not matched.
      if (!(error instanceof ExpressionError)) throw error;
      evaluations.push({ rule: i, if: rule.if, matched: false, reason: error.message });
    }
  }
  const fallback = rules.find((r) => r.else !== undefined);
  if (fallback) return { branch: 'else', goto: fallback.else!, evaluations };
  return { branch: null, goto: null, evaluations };
}

/** Every CEL source a node may evaluate, in the order it evaluates them. */
export function nodeExpressions(node: WorkflowNode): string[] {
  const config = node.config;
  const fromTemplates = (value: JsonValue | undefined): string[] => {
    if (typeof value === 'string') return templateExpressions(value);
    if (Array.isArray(value)) return value.flatMap(fromTemplates);
    if (value !== null && typeof value === 'object') return Object.values(value).flatMap(fromTemplates);
    return [];
  };
  switch (node.type) {
    case 'condition':
      return (config.rules as ConditionRule[]).flatMap((r) => (r.if === undefined ? [] : [r.if]));
    case 'transform':
      return Object.values((config.fields ?? {}) as Record<string, string>);
    case 'agent':
      return [...fromTemplates(config.message), ...fromTemplates(config.session_id)];
    case 'integration':
      return [...fromTemplates(config.url), ...fromTemplates(config.headers), ...fromTemplates(config.body)];
    case 'workflow':
      return fromTemplates(config.input);
    case 'foreach':
      return [String(config.items)];
    default:
      return [];
  }
}
