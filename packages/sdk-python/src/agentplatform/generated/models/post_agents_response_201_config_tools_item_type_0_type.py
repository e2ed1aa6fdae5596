from enum import StrEnum

class PostAgentsResponse201ConfigToolsItemType0Type(StrEnum):
    MEMORY_ADD = "memory_add"
    MEMORY_SEARCH = "memory_search"

    def __str__(self) -> str:
        return str(self.value)
