from enum import StrEnum

class GetAgentsResponse200AgentsItemMemoryTypesItem(StrEnum):
    EPISODIC = "episodic"
    PROCEDURAL = "procedural"
    SEMANTIC = "semantic"

    def __str__(self) -> str:
        return str(self.value)
