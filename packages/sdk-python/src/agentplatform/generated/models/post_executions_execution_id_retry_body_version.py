from enum import StrEnum

class PostExecutionsExecutionIdRetryBodyVersion(StrEnum):
    CURRENT = "current"
    FAILED = "failed"

    def __str__(self) -> str:
        return str(self.value)
