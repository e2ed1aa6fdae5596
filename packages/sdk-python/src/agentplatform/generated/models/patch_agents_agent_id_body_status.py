from enum import StrEnum

class PatchAgentsAgentIdBodyStatus(StrEnum):
    ACTIVE = "active"
    INACTIVE = "inactive"

    def __str__(self) -> str:
        return str(self.value)
