from enum import StrEnum

class PatchWebhooksWebhookIdResponse200Status(StrEnum):
    ACTIVE = "active"
    DISABLED = "disabled"
    FAILED = "failed"

    def __str__(self) -> str:
        return str(self.value)
