from enum import StrEnum

class GetAgentsAgentIdSessionsSessionIdMessagesResponse200MessagesItemRole(StrEnum):
    ASSISTANT = "assistant"
    TOOL = "tool"
    USER = "user"

    def __str__(self) -> str:
        return str(self.value)
