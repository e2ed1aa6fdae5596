/**
 * Request and response types of the Agent Platform API. Everything an HTTP call sends or answers
 * is derived from `api-types.ts`, which scripts/sdk-types.js generates from the gateway's OpenAPI
 * document (npm test fails when it is stale), so these names cannot drift from the API. Only the
 * webhook envelope, which no HTTP route answers, is written here.
 */
import type { operations } from './api-types.js';

type Json<C> = C extends { content: { 'application/json': infer B } } ? B : never;

/** The JSON body an operation takes. */
export type RequestBody<K extends keyof operations> = operations[K] extends { requestBody?: infer R }
  ? Json<NonNullable<R>>
  : never;

/** The JSON body of an operation's success (200, or 201 for creates). */
export type ResponseBody<K extends keyof operations> = operations[K]['responses'] extends infer R
  ? 200 extends keyof R
    ? Json<R[200]>
    : 201 extends keyof R
      ? Json<R[201]>
      : never
  : never;

/** An ISO 8601 UTC timestamp. */
export type Timestamp = string;

// ---- auth ------------------------------------------------------------------------------------

export type RegisterRequest = RequestBody<'postAuthRegister'>;
export type RegisterResponse = ResponseBody<'postAuthRegister'>;
export type TokenResponse = ResponseBody<'postAuthLogin'>;
export type CurrentUser = ResponseBody<'getAuthMe'>;
export type CreateApiKeyRequest = RequestBody<'postAuthApiKeys'>;
export type Scope = CreateApiKeyRequest['scopes'][number];
export type CreatedApiKey = ResponseBody<'postAuthApiKeys'>;
export type ApiKeySummary = ResponseBody<'getAuthApiKeys'>['items'][number];
export type RevokeResponse = ResponseBody<'deleteAuthApiKeysKeyId'>;

// ---- agents and memory -----------------------------------------------------------------------

export type CreateAgentRequest = RequestBody<'postAgents'>;
export type UpdateAgentRequest = RequestBody<'patchAgentsAgentId'>;
export type Agent = ResponseBody<'getAgentsAgentId'>;
export type AgentType = Agent['type'];
export type AgentConfig = NonNullable<CreateAgentRequest['config']>;
/** A tool grant of `config.tools` (memory_search, memory_add, workflow, http, mcp). */
export type ToolGrant = NonNullable<AgentConfig['tools']>[number];
export type MemoryType = NonNullable<CreateAgentRequest['memory_types']>[number];
export type AgentList = ResponseBody<'getAgents'>;
export type ChatRequest = RequestBody<'postAgentsAgentIdChat'>;
export type ChatMessage = ResponseBody<'postAgentsAgentIdChat'>;
export type Usage = ChatMessage['usage'];
/** One tool call of a chat turn: `output` when it succeeded, else `error`. */
export type ToolStep = ChatMessage['steps'][number];

export type AddMemoryRequest = RequestBody<'postMemory'>;
export type MemoryItem = ResponseBody<'postMemory'>;
export type AddMemoryBatchRequest = RequestBody<'postMemoryBatch'>;
export type MemoryBatchResult = ResponseBody<'postMemoryBatch'>;
export type SearchMemoryRequest = RequestBody<'postMemorySearch'>;
export type MemorySearchResponse = ResponseBody<'postMemorySearch'>;
export type MemorySearchResult = MemorySearchResponse['results'][number];
export type ConsolidateMemoryRequest = RequestBody<'postMemoryConsolidate'>;
export type ConsolidateMemoryResult = ResponseBody<'postMemoryConsolidate'>;

// ---- workflows -------------------------------------------------------------------------------

export type CreateWorkflowRequest = RequestBody<'postWorkflows'>;
export type UpdateWorkflowRequest = RequestBody<'putWorkflowsWorkflowId'>;
export type WorkflowNode = CreateWorkflowRequest['nodes'][number];
export type WorkflowEdge = NonNullable<CreateWorkflowRequest['edges']>[number];
export type Workflow = ResponseBody<'getWorkflowsWorkflowId'>;
export type CreatedWorkflow = ResponseBody<'postWorkflows'>;
export type WorkflowStatus = Workflow['status'];
export type WorkflowList = ResponseBody<'getWorkflows'>;
export type WorkflowStateChange = ResponseBody<'postWorkflowsWorkflowIdPause'>;
export type ExecuteWorkflowRequest = RequestBody<'postWorkflowsWorkflowIdExecute'>;
export type RetryExecutionRequest = RequestBody<'postExecutionsExecutionIdRetry'>;
export type Execution = ResponseBody<'getWorkflowsWorkflowIdExecutionsExecutionId'>;
export type ExecutionStatus = Execution['status'];
export type NodeExecution = NonNullable<Execution['node_executions']>[number];
export type ExecutionList = ResponseBody<'getWorkflowsWorkflowIdExecutions'>;

// ---- webhooks --------------------------------------------------------------------------------

export type CreateWebhookRequest = RequestBody<'postWebhooks'>;
export type UpdateWebhookRequest = RequestBody<'patchWebhooksWebhookId'>;
export type Webhook = ResponseBody<'getWebhooksWebhookId'>;
export type CreatedWebhook = ResponseBody<'postWebhooks'>;
export type WebhookStatus = Webhook['status'];
export type WebhookList = ResponseBody<'getWebhooks'>;
export type RotateSecretRequest = RequestBody<'postWebhooksWebhookIdRotateSecret'>;
export type RotatedSecret = ResponseBody<'postWebhooksWebhookIdRotateSecret'>;
export type TestSendResult = ResponseBody<'postWebhooksWebhookIdTest'>;
export type Delivery = ResponseBody<'postWebhooksWebhookIdDeliveriesDeliveryIdRedeliver'>;
export type DeliveryStatus = Delivery['status'];
export type DeliveryList = ResponseBody<'getWebhooksWebhookIdDeliveries'>;
export type DeliveryDetail = ResponseBody<'getWebhooksWebhookIdDeliveriesDeliveryId'>;
export type RecoverResult = ResponseBody<'postWebhooksWebhookIdRecover'>;

/** The event types a platform of this version publishes (the deliveries' `event_type`); receivers should accept others too. */
export type EventType = Delivery['event_type'];

/** The JSON envelope a webhook receives (no HTTP route answers it, so it is written here). */
export interface WebhookEvent<D = Record<string, unknown>> {
  id: string;
  type: EventType | (string & {});
  created_at: Timestamp;
  data: D;
  tenant_id: string;
  api_version: string;
}

// ---- billing ---------------------------------------------------------------------------------

export type Credits = ResponseBody<'getBillingCredits'>;
export type PurchaseRequest = RequestBody<'postBillingPurchases'>;
export type Purchase = ResponseBody<'postBillingPurchases'>;
