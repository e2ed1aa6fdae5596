from enum import StrEnum

class GetWorkflowsWorkflowIdExecutionsExecutionIdResponse200Status(StrEnum):
    CANCELLED = "cancelled"
    COMPLETED = "completed"
    FAILED = "failed"
    QUEUED = "queued"
    RUNNING = "running"

    def __str__(self) -> str:
        return str(self.value)
