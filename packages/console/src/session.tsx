import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api, must, publicApi, setTenant, setTokens, currentTokens, whenSignedOut, ApiError } from './api';

export type Scope =
  | 'agents:read'
  | 'agents:write'
  | 'memory:read'
  | 'memory:write'
  | 'workflows:read'
  | 'workflows:write'
  | 'workflows:execute'
  | 'webhooks:read'
  | 'webhooks:write'
  | 'billing:read';

const READ: Scope[] = ['agents:read', 'memory:read', 'workflows:read', 'webhooks:read'];
const WORK: Scope[] = ['agents:write', 'memory:write', 'workflows:write', 'workflows:execute'];
/**
 * What each role may do, as identity grants it (DESIGN section 4), only to decide which buttons to
 * offer: the API still decides, and a 403 it gives is shown as such.
 */
const ROLE_SCOPES: Record<string, Scope[]> = {
  owner: [...READ, ...WORK, 'webhooks:write', 'billing:read'],
  admin: [...READ, ...WORK, 'webhooks:write', 'billing:read'],
  member: [...READ, ...WORK],
  viewer: [...READ],
};

export interface Tenant {
  id: string;
  name: string;
  role: string;
}

export interface Session {
  email: string;
  tenants: Tenant[];
  tenant: Tenant;
  can: (scope: Scope) => boolean;
  switchTenant: (id: string) => void;
  signOut: () => Promise<void>;
}

interface SessionState {
  session: Session | undefined;
  signIn: (email: string, password: string) => Promise<void>;
  signUp: (input: { email: string; password: string; full_name?: string; company?: string }) => Promise<void>;
}

const Context = createContext<SessionState | undefined>(undefined);

export function useSessionState(): SessionState {
  const value = useContext(Context);
  if (!value) throw new Error('useSessionState outside SessionProvider');
  return value;
}

/** The signed-in session; pages render only inside one. */
export function useSession(): Session {
  const { session } = useSessionState();
  if (!session) throw new Error('useSession without a session');
  return session;
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const queries = useQueryClient();
  const [me, setMe] = useState<{ email: string; tenants: Tenant[] } | undefined>();
  const [tenantId, setTenantId] = useState<string | undefined>();

  const clear = useCallback(() => {
    setTokens(undefined);
    setTenant(undefined);
    setMe(undefined);
    setTenantId(undefined);
    queries.clear();
  }, [queries]);

  useEffect(() => whenSignedOut(clear), [clear]);

  const signIn = useCallback(async (email: string, password: string) => {
    const tokens = await must(publicApi.POST('/auth/login', { body: { username: email, password } }));
    setTokens({ accessToken: tokens.access_token, refreshToken: tokens.refresh_token });
    const who = await must(api.GET('/auth/me'));
    if (!('tenants' in who)) throw new ApiError(400, { error: 'unexpected', message: 'Not a user session' });
    setTenant(who.tenants[0]?.id);
    setTenantId(who.tenants[0]?.id);
    setMe({ email: who.email, tenants: who.tenants });
  }, []);

  const signUp = useCallback<SessionState['signUp']>(
    async (input) => {
      await must(publicApi.POST('/auth/register', { body: input }));
      await signIn(input.email, input.password);
    },
    [signIn],
  );

  const session = useMemo<Session | undefined>(() => {
    const tenant = me?.tenants.find((t) => t.id === tenantId);
    if (!me || !tenant) return undefined;
    const scopes = ROLE_SCOPES[tenant.role] ?? READ;
    return {
      email: me.email,
      tenants: me.tenants,
      tenant,
      can: (scope) => scopes.includes(scope),
      switchTenant: (id) => {
        setTenant(id);
        setTenantId(id);
        queries.clear();
      },
      signOut: async () => {
        const held = currentTokens();
        if (held)
          await publicApi.POST('/auth/logout', { body: { refresh_token: held.refreshToken } }).catch(() => undefined);
        clear();
      },
    };
  }, [me, tenantId, queries, clear]);

  const value = useMemo(() => ({ session, signIn, signUp }), [session, signIn, signUp]);
  return <Context.Provider value={value}>{children}</Context.Provider>;
}
