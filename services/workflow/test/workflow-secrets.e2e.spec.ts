import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import mongoose from 'mongoose';
import { SecretBox } from '@agentplatform/service-kit';
import {
  api,
  createApiKey,
  newTenant,
  Receiver,
  registerUser,
  REPO_ROOT,
  startPlatform,
  suiteFixture,
  waitFor,
  type Http,
  type RegisteredUser,
} from '@agentplatform/testing';

type MongoClient = InstanceType<typeof mongoose.mongo.MongoClient>;

/**
 * Secrets in workflows (docs/workflows.md, "Secrets in workflows"): header values of http nodes
 * sealed at rest and write-only, bound to the URL's origin, the hook URL shown only to callers who
 * may execute, and key rotation. Through the real gateway and workflow service; what is stored is
 * read straight from the MongoDB stand-in with the driver, byte for byte.
 */
describe('secrets in workflows', () => {
  const platform = suiteFixture(() => startPlatform({ services: ['identity', 'workflow'] }));
  const receiver = suiteFixture(() => Receiver.start());
  /** Another origin (another port). */
  const other = suiteFixture(() => Receiver.start());
  let owner: RegisteredUser;
  let http: Http;
  let mongo: MongoClient;
  const secret = `sk-live-${randomBytes(16).toString('hex')}`;
  let workflowId: string;

  beforeAll(async () => {
    const tenant = await newTenant(platform);
    owner = tenant.user;
    http = tenant.http;
    mongo = await new mongoose.mongo.MongoClient(platform.mongoUri).connect();
  });

  afterAll(async () => {
    await mongo?.close();
  });

  const workflowDb = () => mongo.db(platform.database('workflow'));

  /** Every stored byte of a collection, as the server returns it (raw BSON documents). */
  async function storedBytes(collection: string): Promise<Buffer> {
    const docs = await workflowDb().collection(collection).find({}, { raw: true }).toArray();
    return Buffer.concat(docs as unknown as Buffer[]);
  }

  const storedWorkflow = () =>
    workflowDb()
      .collection('workflows')
      .findOne({ _id: workflowId as never });

  function callNode(url: string, headers: Record<string, string>) {
    return { id: 'call', type: 'integration', config: { service: 'http', method: 'POST', url, headers } };
  }

  /** Runs the workflow and answers the request the receiver got at `path`. */
  async function runAndReceive(receivedAt: string, at = receiver) {
    const before = at.to(receivedAt).length;
    // As a hook would start it: the request's body under `body`.
    const run = await http.post(`/api/v1/workflows/${workflowId}/execute`, { input: { body: { n: 1 } } });
    expect(run.status).toBe(200);
    expect(run.body.status).toBe('completed');
    const requests = await at.waitForRequests(before + 1, { path: receivedAt });
    return { execution: run.body, request: requests[before]! };
  }

  /** Restarts the workflow service with another DATA_ENCRYPTION_KEY. */
  async function restartWorkflow(keyring: string) {
    const service = platform.service('workflow');
    await service.stop();
    service.setEnv({ DATA_ENCRYPTION_KEY: keyring });
    await service.start();
  }

  it('stores header values sealed, in the workflow and in every execution, and answers "[set]"', async () => {
    receiver.on('/secret', { status: 200, body: '{"ok":true}', headers: { 'content-type': 'application/json' } });
    const created = await http.post('/api/v1/workflows', {
      name: 'sealed',
      nodes: [
        { id: 'hook', type: 'webhook', config: {} },
        callNode(`${receiver.url('/secret')}?run={{ input.body.n }}`, {
          Authorization: `Bearer ${secret}`,
          'X-Tag': 'v-{{ input.body.n }}',
        }),
      ],
      edges: [{ source: 'hook', target: 'call' }],
    });
    expect(created.status).toBe(201);
    workflowId = created.body.id;
    expect(created.body.nodes[1].config.headers).toEqual({ Authorization: '[set]', 'X-Tag': '[set]' });
    expect(created.text).not.toContain(secret);

    const got = await http.get(`/api/v1/workflows/${workflowId}`);
    expect(got.body.nodes[1].config.headers).toEqual({ Authorization: '[set]', 'X-Tag': '[set]' });
    expect(got.text).not.toContain(secret);

    const stored = await storedWorkflow();
    expect(stored).toMatchObject({ secret_key_id: 'test' });
    expect(stored!.nodes[1].config.headers.Authorization).toMatch(/^v1:test:/);
    expect((await storedBytes('workflows')).includes(secret)).toBe(false);

    // The node opens the value when it runs, and renders its template as before.
    const { execution, request } = await runAndReceive('/secret');
    expect(request.headers.authorization).toBe(`Bearer ${secret}`);
    expect(request.headers['x-tag']).toBe('v-1');
    expect(JSON.stringify(execution)).not.toContain(secret);
    const snapshot = await workflowDb()
      .collection('executions')
      .findOne({ _id: execution.execution_id as never });
    expect(snapshot).toMatchObject({ secret_key_id: 'test' });
    expect(snapshot!.graph.nodes[1].config.headers.Authorization).toMatch(/^v1:test:/);
    expect((await storedBytes('executions')).includes(secret)).toBe(false);
  });

  it('shows a viewer "[set]" and no hook URL; only callers with workflows:execute see the hook URL', async () => {
    const viewer = await registerUser(platform.url);
    await mongo
      .db(platform.database('identity'))
      .collection('memberships')
      .insertOne({
        _id: `mem_${randomBytes(8).toString('hex')}` as never,
        tenant_id: owner.tenantId,
        user_id: viewer.userId,
        role: 'viewer',
        created_at: new Date(),
      });
    const asViewer = await api(platform.url, viewer.accessToken).get(
      `/api/v1/workflows/${workflowId}?tenant_id=${owner.tenantId}`,
    );
    expect(asViewer.status).toBe(200);
    expect(asViewer.body.nodes[1].config.headers).toEqual({ Authorization: '[set]', 'X-Tag': '[set]' });
    expect(asViewer.body.webhook_url).toBeNull();
    expect(asViewer.text).not.toMatch(/hk_[0-9A-Za-z]{32}/);
    expect(asViewer.text).not.toContain(secret);

    const reader = await createApiKey(platform.url, owner.accessToken, ['workflows:read', 'workflows:write'], 'r');
    const asReader = await api(platform.url, reader.key).get(`/api/v1/workflows/${workflowId}`);
    expect(asReader.body.webhook_url).toBeNull();
    const rotated = await api(platform.url, reader.key).post(`/api/v1/workflows/${workflowId}/hook/rotate`, {});
    expect(rotated.status).toBe(200);
    expect(rotated.body.webhook_url).toBeNull();

    const runner = await createApiKey(platform.url, owner.accessToken, ['workflows:read', 'workflows:execute'], 'x');
    const asRunner = await api(platform.url, runner.key).get(`/api/v1/workflows/${workflowId}`);
    expect(asRunner.body.webhook_url).toMatch(/\/hooks\/hk_[0-9A-Za-z]{32}$/);
    expect((await http.get(`/api/v1/workflows/${workflowId}`)).body.webhook_url).toBe(asRunner.body.webhook_url);
  });

  it('keeps a value sent back as "[set]", refuses it for another origin, and takes new values', async () => {
    const current = (await http.get(`/api/v1/workflows/${workflowId}`)).body;
    const sealedBefore = (await storedWorkflow())!.nodes[1].config.headers.Authorization;
    const kept = await http.put(`/api/v1/workflows/${workflowId}`, { nodes: current.nodes, edges: current.edges });
    expect(kept.status).toBe(200);
    expect(kept.body.version).toBe(current.version);
    expect((await storedWorkflow())!.nodes[1].config.headers.Authorization).toBe(sealedBefore);
    expect((await runAndReceive('/secret')).request.headers.authorization).toBe(`Bearer ${secret}`);

    // Another origin: the stored values stay behind.
    const elsewhere = other.url('/moved');
    const moved = await http.put(`/api/v1/workflows/${workflowId}`, {
      nodes: [current.nodes[0], callNode(elsewhere, { Authorization: '[set]', 'X-Tag': '[set]' })],
    });
    expect(moved.status).toBe(400);
    expect(moved.body.details).toEqual([
      { field: 'nodes[1].config.headers', message: expect.stringContaining('origin') },
    ]);

    const templatedHost = await http.put(`/api/v1/workflows/${workflowId}`, {
      nodes: [current.nodes[0], callNode('http://{{ input.body.host }}/x', { Authorization: '[set]' })],
    });
    expect(templatedHost.status).toBe(400);
    expect(templatedHost.body.details).toEqual([
      { field: 'nodes[1].config.url', message: expect.stringContaining('path and query') },
    ]);

    const unknown = await http.put(`/api/v1/workflows/${workflowId}`, {
      nodes: [current.nodes[0], callNode(receiver.url('/secret'), { 'X-Other': '[set]' })],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toEqual([{ field: 'nodes[1].config.headers.X-Other', message: expect.any(String) }]);

    const otherSecret = `sk-other-${randomBytes(8).toString('hex')}`;
    other.on('/moved', { status: 200, body: 'ok' });
    const resent = await http.put(`/api/v1/workflows/${workflowId}`, {
      nodes: [current.nodes[0], callNode(elsewhere, { Authorization: `Bearer ${otherSecret}` })],
    });
    expect(resent.status).toBe(200);
    expect(resent.body.version).toBe(current.version + 1);
    expect((await runAndReceive('/moved', other)).request.headers.authorization).toBe(`Bearer ${otherSecret}`);
    expect((await storedBytes('workflows')).includes(otherSecret)).toBe(false);

    const back = await http.put(`/api/v1/workflows/${workflowId}`, {
      nodes: [current.nodes[0], callNode(receiver.url('/secret'), { Authorization: `Bearer ${secret}` })],
    });
    expect(back.status).toBe(200);
  });

  it('re-seals every value under the new key on rotation; runs keep working, also after the old key is retired', async () => {
    const oldKeyring = platform.dataEncryptionKey;
    const newEntry = SecretBox.generateKeyring('k2');
    // An execution under the old key (its snapshot is re-sealed too).
    const { execution } = await runAndReceive('/secret');
    // A workflow as releases before sealed headers stored it: the value in plaintext.
    const legacySecret = `sk-legacy-${randomBytes(8).toString('hex')}`;
    const legacyId = `wf_legacy${randomBytes(6).toString('hex')}`;
    const now = new Date();
    await workflowDb()
      .collection('workflows')
      .insertOne({
        _id: legacyId as never,
        tenant_id: owner.tenantId,
        hook_id: `hk_${randomBytes(16).toString('hex')}`,
        name: 'legacy',
        description: '',
        status: 'draft',
        version: 1,
        nodes: [callNode(receiver.url('/legacy'), { Authorization: `Bearer ${legacySecret}` })],
        edges: [],
        next_run_at: null,
        created_at: now,
        updated_at: now,
      });
    expect((await storedBytes('workflows')).includes(legacySecret)).toBe(true);

    await restartWorkflow(`${newEntry},${oldKeyring}`);
    expect(
      await workflowDb()
        .collection('workflows')
        .findOne({ _id: legacyId as never }),
    ).toMatchObject({
      secret_key_id: 'k2',
    });
    expect((await storedBytes('workflows')).includes(legacySecret)).toBe(false);
    receiver.on('/legacy', { status: 200, body: 'ok' });
    const legacyRun = await http.post(`/api/v1/workflows/${legacyId}/execute`, { input: {} });
    expect(legacyRun.body.status).toBe('completed');
    expect((await receiver.waitForRequests(1, { path: '/legacy' }))[0]!.headers.authorization).toBe(
      `Bearer ${legacySecret}`,
    );
    expect(await storedWorkflow()).toMatchObject({ secret_key_id: 'k2' });
    expect((await storedWorkflow())!.nodes[1].config.headers.Authorization).toMatch(/^v1:k2:/);
    const snapshot = await waitFor(
      async () => {
        const doc = await workflowDb()
          .collection('executions')
          .findOne({ _id: execution.execution_id as never });
        return doc?.secret_key_id === 'k2' ? doc : undefined;
      },
      { what: "the execution's snapshot re-sealed under k2" },
    );
    expect(snapshot.graph.nodes[1].config.headers.Authorization).toMatch(/^v1:k2:/);
    expect(
      await workflowDb()
        .collection('executions')
        .countDocuments({ secret_key_id: { $ne: 'k2' } }),
    ).toBe(0);
    expect((await storedBytes('workflows')).includes(secret)).toBe(false);
    expect((await runAndReceive('/secret')).request.headers.authorization).toBe(`Bearer ${secret}`);

    // The old key retired: everything still opens.
    await restartWorkflow(newEntry);
    expect((await runAndReceive('/secret')).request.headers.authorization).toBe(`Bearer ${secret}`);
  });

  it('fails the node naming the header when a value cannot be decrypted, and refuses a wrong current key at start', async () => {
    // A keyring without the key the values are sealed with (retired too early).
    await restartWorkflow(SecretBox.generateKeyring('k3'));
    const run = await http.post(`/api/v1/workflows/${workflowId}/execute`, { input: {} });
    expect(run.body.status).toBe('failed');
    expect(run.body.failed_node_id).toBe('call');
    expect(run.body.error).toContain("header 'Authorization' of node 'call' cannot be decrypted");
    expect(run.text).not.toContain(secret);

    // The key id the values are under, with other bytes: the service does not start.
    const service = platform.service('workflow');
    await service.stop();
    service.setEnv({ DATA_ENCRYPTION_KEY: SecretBox.generateKeyring('k2') });
    await expect(service.start()).rejects.toThrow(
      /workflow wf_\w+: header 'Authorization' of node 'call' cannot be decrypted/,
    );
  });

  it('refuses to start in production without DATA_ENCRYPTION_KEY, naming the variable', () => {
    const started = spawnSync(process.execPath, [path.join(REPO_ROOT, 'services', 'workflow', 'dist', 'main.js')], {
      env: { ...process.env, NODE_ENV: 'production', DATA_ENCRYPTION_KEY: '', MONGODB_URI: platform.mongoUri },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(started.status).toBe(1);
    expect(started.stderr).toContain('DATA_ENCRYPTION_KEY: is required');
  });
});
