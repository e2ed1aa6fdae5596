from enum import StrEnum

class GetWebhooksResponse200ItemsItemStatus(StrEnum):
    ACTIVE = "active"
    DISABLED = "disabled"
    FAILED = "failed"

    def __str__(self) -> str:
        return str(self.value)
