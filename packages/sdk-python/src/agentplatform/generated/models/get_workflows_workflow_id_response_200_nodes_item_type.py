from enum import StrEnum

class GetWorkflowsWorkflowIdResponse200NodesItemType(StrEnum):
    AGENT = "agent"
    CONDITION = "condition"
    DELAY = "delay"
    FOREACH = "foreach"
    INTEGRATION = "integration"
    SCHEDULE = "schedule"
    TRANSFORM = "transform"
    WEBHOOK = "webhook"
    WORKFLOW = "workflow"

    def __str__(self) -> str:
        return str(self.value)
