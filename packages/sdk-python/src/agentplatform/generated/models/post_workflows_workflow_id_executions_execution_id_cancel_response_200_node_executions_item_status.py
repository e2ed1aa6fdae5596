from enum import StrEnum

class PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200NodeExecutionsItemStatus(StrEnum):
    COMPLETED = "completed"
    FAILED = "failed"
    SKIPPED = "skipped"

    def __str__(self) -> str:
        return str(self.value)
