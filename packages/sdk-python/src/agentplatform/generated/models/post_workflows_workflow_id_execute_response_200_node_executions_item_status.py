from enum import StrEnum

class PostWorkflowsWorkflowIdExecuteResponse200NodeExecutionsItemStatus(StrEnum):
    COMPLETED = "completed"
    FAILED = "failed"
    SKIPPED = "skipped"

    def __str__(self) -> str:
        return str(self.value)
