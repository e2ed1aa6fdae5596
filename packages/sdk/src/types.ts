/** Request and response types of the Agent Platform API (SPEC.md sections 2 and 4, DESIGN.md). */

export type Timestamp = string;

// ---- auth ------------------------------------------------------------------------------------

export interface RegisterRequest {
  email: string;
  password: string;
  full_name?: string;
  company?: string;
}

export interface RegisterResponse {
  id: string;
  email: string;
  full_name: string;
  tenant_id: string;
  credits: number;
  created_at: Timestamp;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'bearer' | string;
  /** Seconds. */
  expires_in: number;
  refresh_token?: string;
}

export interface TenantMembership {
  id: string;
  name: string;
  role: 'owner' | 'admin' | 'member' | 'viewer' | string;
}

export interface CurrentUser {
  id: string;
  email: string;
  full_name: string;
  is_active: boolean;
  tenants: TenantMembership[];
}

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
  | 'billing:read'
  | (string & {});

export interface CreateApiKeyRequest {
  name: string;
  scopes: Scope[];
  expires_at?: Timestamp;
}

export interface CreatedApiKey {
  id: string;
  name: string;
  /** The full key: shown only here. */
  key: string;
  scopes: Scope[];
  created_at: Timestamp;
  expires_at?: Timestamp | null;
}

export interface ApiKeySummary {
  id: string;
  name: string;
  key_prefix: string;
  scopes: Scope[];
  last_used_at?: Timestamp | null;
  created_at: Timestamp;
  expires_at?: Timestamp | null;
}

export interface RevokeResponse {
  success: boolean;
  message: string;
}

// ---- agents ----------------------------------------------------------------------------------

export type AgentType = 'assistant' | 'support' | 'sales' | 'research' | 'custom' | (string & {});
export type MemoryType = 'semantic' | 'episodic' | 'procedural' | (string & {});

export interface AgentConfig {
  model?: string;
  temperature?: number;
  max_tokens?: number;
  system_prompt?: string;
  [key: string]: unknown;
}

export interface CreateAgentRequest {
  name: string;
  type: AgentType;
  description?: string;
  memory_types?: MemoryType[];
  config?: AgentConfig;
}

export type UpdateAgentRequest = Partial<CreateAgentRequest> & { status?: 'active' | 'inactive' | (string & {}) };

export interface Agent {
  id: string;
  name: string;
  type: AgentType;
  status: string;
  description?: string;
  memory_types?: MemoryType[];
  config?: AgentConfig;
  created_at: Timestamp;
  updated_at?: Timestamp;
}

export interface AgentList {
  agents: Agent[];
  total: number;
  page: number;
  per_page: number;
}

export interface ChatRequest {
  message: string;
  session_id?: string;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ChatMessage {
  id: string;
  content: string;
  role: 'assistant' | string;
  usage: Usage;
  created_at: Timestamp;
  session_id?: string;
  model?: string;
}

// ---- memory ----------------------------------------------------------------------------------

export interface AddMemoryRequest {
  agent_id: string;
  memory_type: MemoryType;
  content: string;
  metadata?: Record<string, unknown>;
}

export interface MemoryItem {
  id: string;
  agent_id?: string;
  memory_type?: MemoryType;
  content: string;
  metadata?: Record<string, unknown>;
  created_at?: Timestamp;
  [key: string]: unknown;
}

export interface SearchMemoryRequest {
  agent_id: string;
  query: string;
  memory_type?: MemoryType;
  top_k?: number;
  min_score?: number;
  filters?: Record<string, unknown>;
}

export interface MemorySearchResult {
  id: string;
  content: string;
  /** In [0, 1], higher is better. */
  score: number;
  metadata: Record<string, unknown>;
}

export interface MemorySearchResponse {
  results: MemorySearchResult[];
}

export interface ConsolidateMemoryRequest {
  agent_id: string;
}

// ---- workflows -------------------------------------------------------------------------------

export interface WorkflowNode {
  id: string;
  type: 'webhook' | 'agent' | 'condition' | 'integration' | 'transform' | 'delay' | (string & {});
  config: Record<string, unknown>;
}

export interface WorkflowEdge {
  source: string;
  target: string;
}

export interface CreateWorkflowRequest {
  name: string;
  description?: string;
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
}

export interface UpdateWorkflowRequest {
  name?: string;
  description?: string;
  nodes?: WorkflowNode[];
  edges?: WorkflowEdge[];
}

export type WorkflowStatus = 'draft' | 'active' | 'paused';

export interface WorkflowStatistics {
  total_runs: number;
  success_rate: number;
  avg_duration: string;
}

export interface Workflow {
  id: string;
  name: string;
  description?: string;
  status: WorkflowStatus;
  trigger_type?: string;
  nodes?: WorkflowNode[];
  edges?: WorkflowEdge[];
  webhook_url?: string;
  statistics?: WorkflowStatistics;
  last_run_at?: Timestamp | null;
  created_at: Timestamp;
  updated_at?: Timestamp;
}

export interface WorkflowList {
  items: Workflow[];
  total: number;
  page: number;
}

export interface WorkflowStateChange {
  id: string;
  status: WorkflowStatus;
  updated_at: Timestamp;
}

export interface ExecuteWorkflowRequest {
  input?: Record<string, unknown>;
  async?: boolean;
}

export type ExecutionStatus = 'running' | 'completed' | 'failed' | 'cancelled';

export interface NodeExecution {
  node_id: string;
  status: 'completed' | 'failed' | 'skipped' | (string & {});
  started_at?: Timestamp;
  duration_ms: number;
  output?: Record<string, unknown>;
}

export interface Execution {
  execution_id: string;
  workflow_id: string;
  status: ExecutionStatus;
  started_at: Timestamp;
  completed_at?: Timestamp;
  duration_ms?: number;
  node_executions?: NodeExecution[];
  output?: Record<string, unknown>;
}

export interface ExecutionList {
  items: Array<Pick<Execution, 'execution_id' | 'status' | 'duration_ms' | 'started_at'>>;
  total: number;
}

// ---- webhooks --------------------------------------------------------------------------------

/** The event types of SPEC.md section 6. */
export type EventType =
  | 'agent.message.created'
  | 'agent.message.completed'
  | 'agent.created'
  | 'agent.updated'
  | 'workflow.execution.started'
  | 'workflow.execution.completed'
  | 'workflow.execution.failed'
  | 'memory.consolidated'
  | 'billing.credits.low'
  | 'billing.purchase.completed';

/** What a webhook subscribes to: an event type, a dotted prefix (`agent.message`), `*`, or the alias `workflow.completed`. */
export type EventSubscription = EventType | '*' | (string & {});

export type WebhookStatus = 'active' | 'failed' | 'disabled';

export interface Webhook {
  id: string;
  url: string;
  events: EventSubscription[];
  status: WebhookStatus;
  metadata?: Record<string, unknown>;
  created_at: Timestamp;
  updated_at?: Timestamp;
  failed_at?: Timestamp | null;
  failure_reason?: string | null;
}

export interface CreateWebhookRequest {
  url: string;
  events: EventSubscription[];
  /** Your own signing secret (16+ printable characters); absent: a `whsec_` secret is generated. */
  secret?: string;
  metadata?: Record<string, unknown>;
}

export interface CreatedWebhook extends Webhook {
  /** Shown only here: keep it to verify deliveries. */
  signing_secret: string;
}

export interface UpdateWebhookRequest {
  url?: string;
  events?: EventSubscription[];
  metadata?: Record<string, unknown>;
  /** `active` re-enables a failed webhook; `disabled` pauses it. */
  status?: 'active' | 'disabled';
}

export interface WebhookList {
  items: Webhook[];
  total: number;
  page: number;
  per_page: number;
}

export interface RotatedSecret {
  id: string;
  signing_secret: string;
  previous_secret_expires_at: Timestamp;
}

export interface TestSendResult {
  success: boolean;
  delivery_id: string;
  response_status: number | null;
  response_time_ms: number;
  event_id?: string;
  error?: string | null;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface Delivery {
  id: string;
  webhook_id?: string;
  event_id: string;
  event_type: EventType | string;
  status: DeliveryStatus;
  response_status: number | null;
  response_time_ms: number | null;
  attempts: number;
  delivered_at: Timestamp | null;
  created_at?: Timestamp;
  next_attempt_at?: Timestamp | null;
  last_error?: string | null;
  test?: boolean;
}

export interface DeliveryAttempt {
  number: number;
  attempted_at: Timestamp;
  duration_ms: number;
  response_status: number | null;
  response_headers: Record<string, string>;
  /** The first 4 KiB of the endpoint's answer. */
  response_body: string | null;
  /** The network error, when there was no answer. */
  error: string | null;
  success: boolean;
}

export interface DeliveryDetail extends Delivery {
  attempt_log: DeliveryAttempt[];
}

export interface DeliveryList {
  items: Delivery[];
}

export interface RecoverResult {
  redelivered: number;
  missed: number;
}

/** The JSON envelope a webhook receives (SPEC.md section 6). */
export interface WebhookEvent<D = Record<string, unknown>> {
  id: string;
  type: EventType | string;
  created_at: Timestamp;
  data: D;
  tenant_id: string;
  api_version: string;
}

// ---- billing ---------------------------------------------------------------------------------

export interface LedgerEntry {
  id: string;
  amount: number;
  description?: string;
  created_at: Timestamp;
  [key: string]: unknown;
}

export interface Credits {
  balance: number;
  ledger?: LedgerEntry[];
  [key: string]: unknown;
}

export interface PurchaseRequest {
  credits: number;
  [key: string]: unknown;
}

export interface Purchase {
  id?: string;
  credits?: number;
  balance: number;
  [key: string]: unknown;
}
