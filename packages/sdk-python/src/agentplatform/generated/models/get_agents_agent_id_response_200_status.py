from enum import StrEnum

class GetAgentsAgentIdResponse200Status(StrEnum):
    ACTIVE = "active"
    INACTIVE = "inactive"

    def __str__(self) -> str:
        return str(self.value)
