from enum import StrEnum

class PostWorkflowsWorkflowIdExecuteResponse200Trigger(StrEnum):
    MANUAL = "manual"
    SCHEDULE = "schedule"
    WEBHOOK = "webhook"

    def __str__(self) -> str:
        return str(self.value)
