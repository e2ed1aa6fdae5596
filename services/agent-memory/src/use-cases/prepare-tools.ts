import { ValidationError, type FieldIssue } from '@agentplatform/service-kit';
import { grantOrigin, headerContext, type HttpGrant, type McpGrant, type ToolGrant } from '../domain/tools.js';
import type { UseCaseDeps } from './deps.js';

/**
 * Makes validated grants ready to store (docs/design.md section 9): every workflow grant must name a
 * workflow of the tenant (asked of the workflow service: another tenant's id is as missing as an
 * unknown one), and header values are sealed to the grant's origin. An http or mcp grant given
 * without `headers` keeps the values stored for the grant of the same type and name, since answers
 * never show them, but only for the same origin: credentials never follow a URL to another host
 * (whoever may edit the agent could otherwise read them out at a server of their own).
 */
export async function prepareTools(
  deps: UseCaseDeps,
  tenantId: string,
  agentId: string,
  grants: ToolGrant[],
  current: ToolGrant[] = [],
): Promise<ToolGrant[]> {
  const issues: FieldIssue[] = [];
  await Promise.all(
    grants.map(async (grant, i) => {
      if (grant.type !== 'workflow') return;
      if (!(await deps.tools.workflows.exists(tenantId, grant.workflow_id))) {
        issues.push({ field: `config.tools[${i}].workflow_id`, message: 'is not a workflow of this tenant' });
      }
    }),
  );
  const kept = grants.map((grant, i) => {
    if ((grant.type !== 'http' && grant.type !== 'mcp') || grant.headers !== undefined) return undefined;
    const stored = current.find((c) => c.type === grant.type && c.name === grant.name) as
      HttpGrant | McpGrant | undefined;
    if (!stored?.headers) return undefined;
    const origin = grantOrigin(stored);
    if (grantOrigin(grant) !== origin) {
      issues.push({
        field: `config.tools[${i}].headers`,
        message: `must be sent again when the ${grant.type === 'http' ? 'url' : 'server_url'} leaves ${origin}: stored header values are bound to their origin`,
      });
      return undefined;
    }
    return stored.headers;
  });
  if (issues.length > 0) throw new ValidationError(issues.sort((a, b) => a.field.localeCompare(b.field)));
  return grants.map((grant, i) => {
    if (grant.type !== 'http' && grant.type !== 'mcp') return grant;
    if (grant.headers === undefined) {
      const headers = kept[i];
      return headers ? { ...grant, headers } : grant;
    }
    const sealed: Record<string, string> = {};
    for (const [name, value] of Object.entries(grant.headers)) {
      sealed[name] = deps.tools.box.seal(value, headerContext(agentId, grant, name));
    }
    return { ...grant, headers: sealed };
  });
}
