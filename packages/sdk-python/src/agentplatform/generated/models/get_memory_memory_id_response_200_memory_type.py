from enum import StrEnum

class GetMemoryMemoryIdResponse200MemoryType(StrEnum):
    EPISODIC = "episodic"
    PROCEDURAL = "procedural"
    SEMANTIC = "semantic"

    def __str__(self) -> str:
        return str(self.value)
