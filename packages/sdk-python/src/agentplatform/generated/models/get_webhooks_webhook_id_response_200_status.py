from enum import StrEnum

class GetWebhooksWebhookIdResponse200Status(StrEnum):
    ACTIVE = "active"
    DISABLED = "disabled"
    FAILED = "failed"

    def __str__(self) -> str:
        return str(self.value)
