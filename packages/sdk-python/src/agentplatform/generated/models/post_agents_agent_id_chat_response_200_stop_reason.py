from enum import StrEnum

class PostAgentsAgentIdChatResponse200StopReason(StrEnum):
    INSUFFICIENT_CREDITS = "insufficient_credits"
    MAX_TOKENS = "max_tokens"
    STOP = "stop"

    def __str__(self) -> str:
        return str(self.value)
