from enum import StrEnum

class GetWorkflowsResponse200ItemsItemStatus(StrEnum):
    ACTIVE = "active"
    DRAFT = "draft"
    PAUSED = "paused"

    def __str__(self) -> str:
        return str(self.value)
