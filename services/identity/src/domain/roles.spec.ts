import { ROLE_SCOPES, SCOPES, effectiveScopes } from './roles.js';

describe('roles and scopes', () => {
  it('gives owners every scope and viewers only reads', () => {
    expect([...ROLE_SCOPES.owner].sort()).toEqual([...SCOPES].sort());
    expect(ROLE_SCOPES.viewer.every((s) => s.endsWith(':read'))).toBe(true);
    expect(ROLE_SCOPES.member).not.toContain('webhooks:write');
  });

  it("limits an API key to its scopes and its creator's current role", () => {
    expect(effectiveScopes(['agents:read', 'agents:write'], 'owner')).toEqual(['agents:read', 'agents:write']);
    expect(effectiveScopes(['agents:read', 'agents:write'], 'viewer')).toEqual(['agents:read']);
    expect(effectiveScopes(['unknown:scope'], 'owner')).toEqual([]);
  });
});
