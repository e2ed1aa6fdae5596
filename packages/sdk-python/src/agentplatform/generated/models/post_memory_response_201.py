from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.post_memory_response_201_memory_type import PostMemoryResponse201MemoryType
from typing import cast

if TYPE_CHECKING:
  from ..models.post_memory_response_201_embedding import PostMemoryResponse201Embedding
  from ..models.post_memory_response_201_metadata import PostMemoryResponse201Metadata





T = TypeVar("T", bound="PostMemoryResponse201")



@_attrs_define
class PostMemoryResponse201:
    """ 
        Attributes:
            id (str):
            agent_id (str):
            memory_type (PostMemoryResponse201MemoryType):
            content (str):
            metadata (PostMemoryResponse201Metadata): Free-form JSON object (e.g. source, category)
            merged_from (list[str]): Ids of the items consolidation merged into this one
            embedding (PostMemoryResponse201Embedding):
            created_at (str):
            updated_at (str):
     """

    id: str
    agent_id: str
    memory_type: PostMemoryResponse201MemoryType
    content: str
    metadata: PostMemoryResponse201Metadata
    merged_from: list[str]
    embedding: PostMemoryResponse201Embedding
    created_at: str
    updated_at: str





    def to_dict(self) -> dict[str, Any]:
        from ..models.post_memory_response_201_embedding import PostMemoryResponse201Embedding # noqa: PLC0415
        from ..models.post_memory_response_201_metadata import PostMemoryResponse201Metadata # noqa: PLC0415
        id = self.id

        agent_id = self.agent_id

        memory_type = self.memory_type.value

        content = self.content

        metadata = self.metadata.to_dict()

        merged_from = self.merged_from



        embedding = self.embedding.to_dict()

        created_at = self.created_at

        updated_at = self.updated_at


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "agent_id": agent_id,
            "memory_type": memory_type,
            "content": content,
            "metadata": metadata,
            "merged_from": merged_from,
            "embedding": embedding,
            "created_at": created_at,
            "updated_at": updated_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.post_memory_response_201_embedding import PostMemoryResponse201Embedding # noqa: PLC0415
        from ..models.post_memory_response_201_metadata import PostMemoryResponse201Metadata # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        agent_id = d.pop("agent_id")

        memory_type = PostMemoryResponse201MemoryType(d.pop("memory_type"))




        content = d.pop("content")

        metadata = PostMemoryResponse201Metadata.from_dict(d.pop("metadata"))




        merged_from = cast(list[str], d.pop("merged_from"))


        embedding = PostMemoryResponse201Embedding.from_dict(d.pop("embedding"))




        created_at = d.pop("created_at")

        updated_at = d.pop("updated_at")

        post_memory_response_201 = cls(
            id=id,
            agent_id=agent_id,
            memory_type=memory_type,
            content=content,
            metadata=metadata,
            merged_from=merged_from,
            embedding=embedding,
            created_at=created_at,
            updated_at=updated_at,
        )

        return post_memory_response_201

