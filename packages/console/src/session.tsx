import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import {
  api,
  ApiError,
  logIn,
  logOut,
  must,
  publicApi,
  renewAccessToken,
  setAccessToken,
  setTenant,
  whenSignedOut,
} from './api';

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
  /** True while a reload's session is being renewed from the refresh cookie. */
  restoring: boolean;
  signIn: (email: string, password: string) => Promise<void>;
  signUp: (input: { email: string; password: string; full_name?: string; company?: string }) => Promise<void>;
}

/** The tenant chosen in this tab, kept across a reload (an id, not a credential). */
const TENANT_KEY = 'console.tenant';

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
  const [restoring, setRestoring] = useState(true);

  const chooseTenant = useCallback((id: string | undefined) => {
    setTenant(id);
    setTenantId(id);
    if (id) sessionStorage.setItem(TENANT_KEY, id);
    else sessionStorage.removeItem(TENANT_KEY);
  }, []);

  const clear = useCallback(() => {
    setAccessToken(undefined);
    chooseTenant(undefined);
    setMe(undefined);
    queries.clear();
  }, [queries, chooseTenant]);

  useEffect(() => whenSignedOut(clear), [clear]);

  /** With an access token in hand: who the user is, and the tenant to act on. */
  const enter = useCallback(async () => {
    const who = await must(api.GET('/auth/me'));
    if (!('tenants' in who)) throw new ApiError(400, { error: 'unexpected', message: 'Not a user session' });
    const kept = sessionStorage.getItem(TENANT_KEY);
    chooseTenant(who.tenants.find((t) => t.id === kept)?.id ?? who.tenants[0]?.id);
    setMe({ email: who.email, tenants: who.tenants });
  }, [chooseTenant]);

  // A reload: the refresh cookie, if the browser has one, renews the session without a sign-in.
  useEffect(() => {
    void (async () => {
      try {
        if (await renewAccessToken()) await enter();
      } catch {
        clear();
      } finally {
        setRestoring(false);
      }
    })();
  }, [enter, clear]);

  const signIn = useCallback(
    async (email: string, password: string) => {
      await logIn(email, password);
      await enter();
    },
    [enter],
  );

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
        chooseTenant(id);
        queries.clear();
      },
      signOut: async () => {
        await logOut();
        clear();
      },
    };
  }, [me, tenantId, queries, clear, chooseTenant]);

  const value = useMemo(() => ({ session, restoring, signIn, signUp }), [session, restoring, signIn, signUp]);
  return <Context.Provider value={value}>{children}</Context.Provider>;
}
