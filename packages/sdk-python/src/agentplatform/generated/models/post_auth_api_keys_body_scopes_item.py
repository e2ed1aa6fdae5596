from enum import StrEnum

class PostAuthApiKeysBodyScopesItem(StrEnum):
    AGENTSREAD = "agents:read"
    AGENTSWRITE = "agents:write"
    BILLINGREAD = "billing:read"
    MEMORYREAD = "memory:read"
    MEMORYWRITE = "memory:write"
    WEBHOOKSREAD = "webhooks:read"
    WEBHOOKSWRITE = "webhooks:write"
    WORKFLOWSEXECUTE = "workflows:execute"
    WORKFLOWSREAD = "workflows:read"
    WORKFLOWSWRITE = "workflows:write"

    def __str__(self) -> str:
        return str(self.value)
