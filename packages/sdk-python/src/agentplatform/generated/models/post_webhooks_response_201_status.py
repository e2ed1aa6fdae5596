from enum import StrEnum

class PostWebhooksResponse201Status(StrEnum):
    ACTIVE = "active"
    DISABLED = "disabled"
    FAILED = "failed"

    def __str__(self) -> str:
        return str(self.value)
