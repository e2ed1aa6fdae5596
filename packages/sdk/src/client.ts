import { ApiConnectionError, toApiError } from './errors.js';
import type * as T from './types.js';

export interface ClientOptions {
  /** The service's base address, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** An access token (from login or refresh) or an API key, sent as a Bearer token. */
  token?: string;
  /** `/api/v1` (flat error bodies, default) or `/v1` (envelope bodies, unwrapped by the client). */
  apiPrefix?: '/api/v1' | '/v1';
  /** Tenant to act on when a call does not name one (default: the caller's own). */
  tenantId?: string;
  /** Per-request time limit in milliseconds (default 30 s). */
  timeoutMs?: number;
  /** Headers added to every request. */
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

export interface CallOptions {
  tenantId?: string;
  /** Makes a POST safe to retry (the first answer is replayed for 24 h). */
  idempotencyKey?: string;
  requestId?: string;
  signal?: AbortSignal;
}

interface RequestSpec {
  query?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  form?: Record<string, string>;
  options?: CallOptions;
  /** Sends the tenant_id query parameter (the routes that take one). */
  tenant?: boolean;
  /** Sends no Authorization header (register, login, refresh). */
  anonymous?: boolean;
}

const path = (strings: TemplateStringsArray, ...ids: string[]) =>
  strings.reduce((out, s, i) => out + s + (i < ids.length ? encodeURIComponent(ids[i]) : ''), '');

/**
 * A typed client of the Agent Platform API. Every failure the API answers becomes an `ApiError`
 * carrying its status, `code`, `message`, field `details` and `retryAfter`; a request that gets
 * no answer becomes an `ApiConnectionError`.
 */
export class AgentPlatformClient {
  private readonly fetchImpl: typeof fetch;

  constructor(readonly options: ClientOptions) {
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    if (!this.fetchImpl) throw new Error('No fetch available: pass options.fetch (Node 18+ has one built in)');
  }

  /** The same client acting with another token (e.g. after login). */
  withToken(token: string): AgentPlatformClient {
    return new AgentPlatformClient({ ...this.options, token });
  }

  async request<R>(method: string, route: string, spec: RequestSpec = {}): Promise<R> {
    const prefix = this.options.apiPrefix ?? '/api/v1';
    const url = new URL(`${this.options.baseUrl.replace(/\/$/, '')}${prefix}${route}`);
    const tenantId = spec.options?.tenantId ?? this.options.tenantId;
    if (spec.tenant && tenantId) url.searchParams.set('tenant_id', tenantId);
    for (const [key, value] of Object.entries(spec.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const headers: Record<string, string> = { accept: 'application/json', ...this.options.headers };
    if (this.options.token && !spec.anonymous) headers.authorization = `Bearer ${this.options.token}`;
    if (spec.options?.idempotencyKey) headers['idempotency-key'] = spec.options.idempotencyKey;
    if (spec.options?.requestId) headers['x-request-id'] = spec.options.requestId;
    let body: string | undefined;
    if (spec.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(spec.form).toString();
    } else if (spec.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(spec.json);
    }
    const timeout = AbortSignal.timeout(this.options.timeoutMs ?? 30_000);
    const signal = spec.options?.signal ? AbortSignal.any([spec.options.signal, timeout]) : timeout;

    let response: Response;
    let text: string;
    try {
      response = await this.fetchImpl(url, { method, headers, body, signal });
      text = await response.text();
    } catch (error) {
      throw new ApiConnectionError(
        `${method} ${url.pathname} failed: ${error instanceof Error ? error.message : String(error)}`,
        error,
      );
    }
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch (error) {
      if (response.ok)
        throw new ApiConnectionError(`${method} ${url.pathname} answered a body that is not JSON`, error);
    }
    if (!response.ok) throw toApiError(response.status, parsed, response.headers);
    if (prefix === '/v1' && parsed && typeof parsed === 'object' && 'success' in parsed && 'data' in parsed) {
      return (parsed as { data: R }).data;
    }
    return parsed as R;
  }

  readonly auth = {
    register: (body: T.RegisterRequest, options?: CallOptions) =>
      this.request<T.RegisterResponse>('POST', '/auth/register', { json: body, options, anonymous: true }),
    /** Password login (form-urlencoded `username` and `password`, as SPEC requires). */
    login: (email: string, password: string, options?: CallOptions) =>
      this.request<T.TokenResponse>('POST', '/auth/login', {
        form: { username: email, password },
        options,
        anonymous: true,
      }),
    refresh: (refreshToken: string, options?: CallOptions) =>
      this.request<T.TokenResponse>('POST', '/auth/refresh', {
        json: { refresh_token: refreshToken },
        options,
        anonymous: true,
      }),
    me: (options?: CallOptions) => this.request<T.CurrentUser>('GET', '/auth/me', { options }),
    createApiKey: (body: T.CreateApiKeyRequest, options?: CallOptions) =>
      this.request<T.CreatedApiKey>('POST', '/auth/api-keys', { json: body, options }),
    listApiKeys: (options?: CallOptions) =>
      this.request<{ items: T.ApiKeySummary[] }>('GET', '/auth/api-keys', { options }),
    revokeApiKey: (keyId: string, options?: CallOptions) =>
      this.request<T.RevokeResponse>('DELETE', path`/auth/api-keys/${keyId}`, { options }),
  };

  readonly agents = {
    list: (query: { page?: number; per_page?: number } = {}, options?: CallOptions) =>
      this.request<T.AgentList>('GET', '/agents', { query, options, tenant: true }),
    create: (body: T.CreateAgentRequest, options?: CallOptions) =>
      this.request<T.Agent>('POST', '/agents', { json: body, options, tenant: true }),
    get: (agentId: string, options?: CallOptions) =>
      this.request<T.Agent>('GET', path`/agents/${agentId}`, { options }),
    update: (agentId: string, body: T.UpdateAgentRequest, options?: CallOptions) =>
      this.request<T.Agent>('PATCH', path`/agents/${agentId}`, { json: body, options }),
    delete: (agentId: string, options?: CallOptions) =>
      this.request<unknown>('DELETE', path`/agents/${agentId}`, { options }),
    chat: (agentId: string, body: T.ChatRequest, options?: CallOptions) =>
      this.request<T.ChatMessage>('POST', path`/agents/${agentId}/chat`, { json: body, options }),
  };

  readonly memory = {
    add: (body: T.AddMemoryRequest, options?: CallOptions) =>
      this.request<T.MemoryItem>('POST', '/memory', { json: body, options }),
    /** 1 to 100 items for one agent, stored all or none; answers them in the request's order. */
    addBatch: (body: T.AddMemoryBatchRequest, options?: CallOptions) =>
      this.request<T.MemoryBatchResult>('POST', '/memory/batch', { json: body, options }),
    search: (body: T.SearchMemoryRequest, options?: CallOptions) =>
      this.request<T.MemorySearchResponse>('POST', '/memory/search', { json: body, options }),
    consolidate: (body: T.ConsolidateMemoryRequest, options?: CallOptions) =>
      this.request<T.ConsolidateMemoryResult>('POST', '/memory/consolidate', { json: body, options }),
  };

  readonly workflows = {
    list: (query: { page?: number; per_page?: number } = {}, options?: CallOptions) =>
      this.request<T.WorkflowList>('GET', '/workflows', { query, options, tenant: true }),
    create: (body: T.CreateWorkflowRequest, options?: CallOptions) =>
      this.request<T.CreatedWorkflow>('POST', '/workflows', { json: body, options, tenant: true }),
    get: (workflowId: string, options?: CallOptions) =>
      this.request<T.Workflow>('GET', path`/workflows/${workflowId}`, { options }),
    update: (workflowId: string, body: T.UpdateWorkflowRequest, options?: CallOptions) =>
      this.request<T.Workflow>('PUT', path`/workflows/${workflowId}`, { json: body, options }),
    execute: (workflowId: string, body: T.ExecuteWorkflowRequest = {}, options?: CallOptions) =>
      this.request<T.Execution>('POST', path`/workflows/${workflowId}/execute`, { json: body, options }),
    getExecution: (workflowId: string, executionId: string, options?: CallOptions) =>
      this.request<T.Execution>('GET', path`/workflows/${workflowId}/executions/${executionId}`, { options }),
    listExecutions: (
      workflowId: string,
      query: { limit?: number; status?: T.ExecutionStatus } = {},
      options?: CallOptions,
    ) => this.request<T.ExecutionList>('GET', path`/workflows/${workflowId}/executions`, { query, options }),
    pause: (workflowId: string, options?: CallOptions) =>
      this.request<T.WorkflowStateChange>('POST', path`/workflows/${workflowId}/pause`, { options }),
    resume: (workflowId: string, options?: CallOptions) =>
      this.request<T.WorkflowStateChange>('POST', path`/workflows/${workflowId}/resume`, { options }),
    /** A new secret hook URL (`webhook_url` of the answer); the old one answers 404 at once. */
    rotateHook: (workflowId: string, options?: CallOptions) =>
      this.request<T.Workflow>('POST', path`/workflows/${workflowId}/hook/rotate`, { options }),
    /**
     * Retries a failed or cancelled execution from its failed node: answers the new execution
     * (`retry_of`, running). `{version: 'current'}` runs the workflow's current graph instead of
     * the one that failed.
     */
    retryExecution: (executionId: string, body: T.RetryExecutionRequest = {}, options?: CallOptions) =>
      this.request<T.Execution>('POST', path`/executions/${executionId}/retry`, { json: body, options }),
  };

  readonly webhooks = {
    list: (query: { page?: number; per_page?: number } = {}, options?: CallOptions) =>
      this.request<T.WebhookList>('GET', '/webhooks', { query, options, tenant: true }),
    create: (body: T.CreateWebhookRequest, options?: CallOptions) =>
      this.request<T.CreatedWebhook>('POST', '/webhooks', { json: body, options, tenant: true }),
    get: (webhookId: string, options?: CallOptions) =>
      this.request<T.Webhook>('GET', path`/webhooks/${webhookId}`, { options }),
    update: (webhookId: string, body: T.UpdateWebhookRequest, options?: CallOptions) =>
      this.request<T.Webhook>('PATCH', path`/webhooks/${webhookId}`, { json: body, options }),
    delete: (webhookId: string, options?: CallOptions) =>
      this.request<{ success: boolean }>('DELETE', path`/webhooks/${webhookId}`, { options }),
    rotateSecret: (webhookId: string, body: T.RotateSecretRequest = {}, options?: CallOptions) =>
      this.request<T.RotatedSecret>('POST', path`/webhooks/${webhookId}/rotate-secret`, { json: body, options }),
    test: (webhookId: string, eventType: T.EventType, options?: CallOptions) =>
      this.request<T.TestSendResult>('POST', path`/webhooks/${webhookId}/test`, {
        json: { event_type: eventType },
        options,
      }),
    listDeliveries: (
      webhookId: string,
      query: { limit?: number; status?: T.DeliveryStatus } = {},
      options?: CallOptions,
    ) => this.request<T.DeliveryList>('GET', path`/webhooks/${webhookId}/deliveries`, { query, options }),
    getDelivery: (webhookId: string, deliveryId: string, options?: CallOptions) =>
      this.request<T.DeliveryDetail>('GET', path`/webhooks/${webhookId}/deliveries/${deliveryId}`, { options }),
    redeliver: (webhookId: string, deliveryId: string, options?: CallOptions) =>
      this.request<T.Delivery>('POST', path`/webhooks/${webhookId}/deliveries/${deliveryId}/redeliver`, { options }),
    /** Redelivers everything that failed (or was missed) since a time. */
    recover: (webhookId: string, since: Date | string, options?: CallOptions) =>
      this.request<T.RecoverResult>('POST', path`/webhooks/${webhookId}/recover`, {
        json: { since: since instanceof Date ? since.toISOString() : since },
        options,
      }),
  };

  readonly billing = {
    credits: (options?: CallOptions) => this.request<T.Credits>('GET', '/billing/credits', { options, tenant: true }),
    purchase: (body: T.PurchaseRequest, options?: CallOptions) =>
      this.request<T.Purchase>('POST', '/billing/purchases', { json: body, options, tenant: true }),
  };
}
