from enum import StrEnum

class PostWorkflowsResponse201Status(StrEnum):
    ACTIVE = "active"
    DRAFT = "draft"
    PAUSED = "paused"

    def __str__(self) -> str:
        return str(self.value)
