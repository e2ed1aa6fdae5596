from enum import StrEnum

class PostAgentsAgentIdChatResponse200StopReason(StrEnum):
    INSUFFICIENT_CREDITS = "insufficient_credits"
    STOP = "stop"

    def __str__(self) -> str:
        return str(self.value)
