from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.get_memory_memory_id_response_200_memory_type import GetMemoryMemoryIdResponse200MemoryType
from typing import cast

if TYPE_CHECKING:
  from ..models.get_memory_memory_id_response_200_embedding import GetMemoryMemoryIdResponse200Embedding
  from ..models.get_memory_memory_id_response_200_metadata import GetMemoryMemoryIdResponse200Metadata





T = TypeVar("T", bound="GetMemoryMemoryIdResponse200")



@_attrs_define
class GetMemoryMemoryIdResponse200:
    """ 
        Attributes:
            id (str):
            agent_id (str):
            memory_type (GetMemoryMemoryIdResponse200MemoryType):
            content (str):
            metadata (GetMemoryMemoryIdResponse200Metadata): Free-form JSON object (e.g. source, category)
            merged_from (list[str]): Ids of the items consolidation merged into this one
            embedding (GetMemoryMemoryIdResponse200Embedding):
            created_at (str):
            updated_at (str):
     """

    id: str
    agent_id: str
    memory_type: GetMemoryMemoryIdResponse200MemoryType
    content: str
    metadata: GetMemoryMemoryIdResponse200Metadata
    merged_from: list[str]
    embedding: GetMemoryMemoryIdResponse200Embedding
    created_at: str
    updated_at: str





    def to_dict(self) -> dict[str, Any]:
        from ..models.get_memory_memory_id_response_200_embedding import GetMemoryMemoryIdResponse200Embedding # noqa: PLC0415
        from ..models.get_memory_memory_id_response_200_metadata import GetMemoryMemoryIdResponse200Metadata # noqa: PLC0415
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
        from ..models.get_memory_memory_id_response_200_embedding import GetMemoryMemoryIdResponse200Embedding # noqa: PLC0415
        from ..models.get_memory_memory_id_response_200_metadata import GetMemoryMemoryIdResponse200Metadata # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        agent_id = d.pop("agent_id")

        memory_type = GetMemoryMemoryIdResponse200MemoryType(d.pop("memory_type"))




        content = d.pop("content")

        metadata = GetMemoryMemoryIdResponse200Metadata.from_dict(d.pop("metadata"))




        merged_from = cast(list[str], d.pop("merged_from"))


        embedding = GetMemoryMemoryIdResponse200Embedding.from_dict(d.pop("embedding"))




        created_at = d.pop("created_at")

        updated_at = d.pop("updated_at")

        get_memory_memory_id_response_200 = cls(
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

        return get_memory_memory_id_response_200

