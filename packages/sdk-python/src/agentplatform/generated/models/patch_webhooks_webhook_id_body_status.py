from enum import StrEnum

class PatchWebhooksWebhookIdBodyStatus(StrEnum):
    ACTIVE = "active"
    DISABLED = "disabled"

    def __str__(self) -> str:
        return str(self.value)
