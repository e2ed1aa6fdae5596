from enum import StrEnum

class PatchAgentsAgentIdResponse200MemoryTypesItem(StrEnum):
    EPISODIC = "episodic"
    PROCEDURAL = "procedural"
    SEMANTIC = "semantic"

    def __str__(self) -> str:
        return str(self.value)
