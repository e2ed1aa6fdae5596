import http from 'node:http';
import { api, registerUser, startPlatform, suiteFixture, type RegisteredUser } from '@agentplatform/testing';

/**
 * The console's session (DESIGN section 10): a browser asks for the refresh token in an HttpOnly,
 * SameSite=Strict cookie scoped to the refresh route, and renews and ends its session with it.
 */
describe('the refresh token in a cookie', () => {
  const platform = suiteFixture(() => startPlatform({ services: ['identity'] }));
  let user: RegisteredUser;

  beforeAll(async () => {
    user = await registerUser(platform.url);
  });

  const loginWithCookie = async () => {
    const res = await api(platform.url).post('/api/v1/auth/login', {
      username: user.email,
      password: user.password,
      refresh_cookie: true,
    });
    expect(res.status).toBe(200);
    return res;
  };
  /** The `name=value` part a browser sends back, from one Set-Cookie header. */
  const cookieOf = (res: { headers: Headers }) => {
    const set = res.headers.getSetCookie();
    expect(set).toHaveLength(1);
    return set[0].split(';')[0];
  };
  const refreshWith = (cookie: string, body: object = {}) =>
    api(platform.url).post('/api/v1/auth/refresh', body, { headers: { cookie } });

  it('sets the cookie HttpOnly, SameSite=Strict, on the refresh path only, and keeps the token out of the body', async () => {
    const res = await loginWithCookie();
    const [set] = res.headers.getSetCookie();
    const attributes = set.split('; ');
    expect(attributes[0]).toMatch(/^ap_refresh=rt_/);
    expect(attributes.slice(1).sort()).toEqual(['HttpOnly', 'Path=/api/v1/auth/refresh', 'SameSite=Strict']);
    expect(res.body).toEqual({
      access_token: expect.any(String),
      token_type: 'bearer',
      expires_in: expect.any(Number),
    });
    expect((await api(platform.url, res.body.access_token).get('/api/v1/auth/me')).status).toBe(200);

    // Served under another name than localhost, the cookie is Secure as well (fetch sets no Host).
    const remote = await new Promise<string[]>((resolve, reject) => {
      const body = JSON.stringify({ username: user.email, password: user.password, refresh_cookie: true });
      const req = http.request(
        `${platform.url}/api/v1/auth/login`,
        { method: 'POST', headers: { host: 'console.example.com', 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          resolve(res.headers['set-cookie'] ?? []);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(remote[0].split('; ')).toContain('Secure');
  });

  it('leaves API clients as they were: no cookie unless asked, the token in the body', async () => {
    const res = await api(platform.url).post('/api/v1/auth/login', { username: user.email, password: user.password });
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(res.body.refresh_token).toMatch(/^rt_/);
  });

  it('renews by the cookie and rotates it; the body token wins over the cookie', async () => {
    const cookie = cookieOf(await loginWithCookie());
    const renewed = await refreshWith(cookie);
    expect(renewed.status).toBe(200);
    expect(renewed.body.refresh_token).toBeUndefined();
    const next = cookieOf(renewed);
    expect(next).not.toBe(cookie);
    expect((await api(platform.url, renewed.body.access_token).get('/api/v1/auth/me')).status).toBe(200);

    // A body token is used (and answered in the body), the cookie left untouched.
    const apiClient = await api(platform.url).post('/api/v1/auth/login', {
      username: user.email,
      password: user.password,
    });
    const byBody = await refreshWith(next, { refresh_token: apiClient.body.refresh_token });
    expect(byBody.status).toBe(200);
    expect(byBody.body.refresh_token).toMatch(/^rt_/);
    expect(byBody.headers.getSetCookie()).toEqual([]);
    expect((await refreshWith(next)).status).toBe(200);
  });

  it('revokes the whole family when a rotated cookie is presented again', async () => {
    const first = cookieOf(await loginWithCookie());
    const second = cookieOf(await refreshWith(first));
    // Within 5 s a second use is a race of one client (refused, family kept); later it is a replay.
    await new Promise((resolve) => setTimeout(resolve, 5_200));
    expect((await refreshWith(first)).status).toBe(401);
    expect((await refreshWith(second)).status).toBe(401);
  });

  it('answers 422 naming refresh_token with neither a body token nor a cookie', async () => {
    const res = await api(platform.url).post('/api/v1/auth/refresh', {});
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([{ field: 'refresh_token', message: expect.stringContaining('cookie') }]);
  });

  it('ends the session and clears the cookie on logout', async () => {
    const login = await loginWithCookie();
    const cookie = cookieOf(login);
    const out = await api(platform.url).delete('/api/v1/auth/refresh', { headers: { cookie } });
    expect(out.status).toBe(200);
    const cleared = out.headers.getSetCookie()[0].split('; ');
    expect(cleared).toEqual(expect.arrayContaining(['ap_refresh=', 'Max-Age=0', 'Path=/api/v1/auth/refresh']));
    expect((await refreshWith(cookie)).status).toBe(401);
    // Its access token stops working too, as with POST /auth/logout.
    expect((await api(platform.url, login.body.access_token).get('/api/v1/auth/me')).status).toBe(401);

    // POST /auth/logout (a body token) clears the cookie as well.
    const byBody = await api(platform.url).post('/api/v1/auth/logout', { refresh_token: user.refreshToken });
    expect(byBody.status).toBe(200);
    expect(byBody.headers.getSetCookie()[0]).toMatch(/^ap_refresh=; Path=\/api\/v1\/auth\/refresh; .*Max-Age=0/);
  });
});
