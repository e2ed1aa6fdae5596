from enum import StrEnum

class GetWebhooksWebhookIdDeliveriesResponse200ItemsItemEventType(StrEnum):
    AGENT_CREATED = "agent.created"
    AGENT_MESSAGE_COMPLETED = "agent.message.completed"
    AGENT_MESSAGE_CREATED = "agent.message.created"
    AGENT_UPDATED = "agent.updated"
    BILLING_CREDITS_LOW = "billing.credits.low"
    BILLING_PURCHASE_COMPLETED = "billing.purchase.completed"
    MEMORY_CONSOLIDATED = "memory.consolidated"
    WORKFLOW_EXECUTION_COMPLETED = "workflow.execution.completed"
    WORKFLOW_EXECUTION_FAILED = "workflow.execution.failed"
    WORKFLOW_EXECUTION_STARTED = "workflow.execution.started"

    def __str__(self) -> str:
        return str(self.value)
