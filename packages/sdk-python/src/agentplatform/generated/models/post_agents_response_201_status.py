from enum import StrEnum

class PostAgentsResponse201Status(StrEnum):
    ACTIVE = "active"
    INACTIVE = "inactive"

    def __str__(self) -> str:
        return str(self.value)
