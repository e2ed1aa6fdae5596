from enum import StrEnum

class GetAgentsType(StrEnum):
    ASSISTANT = "assistant"
    CUSTOM = "custom"
    RESEARCH = "research"
    SALES = "sales"
    SUPPORT = "support"

    def __str__(self) -> str:
        return str(self.value)
