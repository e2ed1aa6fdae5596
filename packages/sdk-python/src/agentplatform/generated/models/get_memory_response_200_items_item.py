from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.get_memory_response_200_items_item_memory_type import GetMemoryResponse200ItemsItemMemoryType
from typing import cast

if TYPE_CHECKING:
  from ..models.get_memory_response_200_items_item_embedding import GetMemoryResponse200ItemsItemEmbedding
  from ..models.get_memory_response_200_items_item_metadata import GetMemoryResponse200ItemsItemMetadata





T = TypeVar("T", bound="GetMemoryResponse200ItemsItem")



@_attrs_define
class GetMemoryResponse200ItemsItem:
    """ 
        Attributes:
            id (str):
            agent_id (str):
            memory_type (GetMemoryResponse200ItemsItemMemoryType):
            content (str):
            metadata (GetMemoryResponse200ItemsItemMetadata): Free-form JSON object (e.g. source, category)
            merged_from (list[str]): Ids of the items consolidation merged into this one
            embedding (GetMemoryResponse200ItemsItemEmbedding):
            created_at (str):
            updated_at (str):
     """

    id: str
    agent_id: str
    memory_type: GetMemoryResponse200ItemsItemMemoryType
    content: str
    metadata: GetMemoryResponse200ItemsItemMetadata
    merged_from: list[str]
    embedding: GetMemoryResponse200ItemsItemEmbedding
    created_at: str
    updated_at: str





    def to_dict(self) -> dict[str, Any]:
        from ..models.get_memory_response_200_items_item_embedding import GetMemoryResponse200ItemsItemEmbedding # noqa: PLC0415
        from ..models.get_memory_response_200_items_item_metadata import GetMemoryResponse200ItemsItemMetadata # noqa: PLC0415
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
        from ..models.get_memory_response_200_items_item_embedding import GetMemoryResponse200ItemsItemEmbedding # noqa: PLC0415
        from ..models.get_memory_response_200_items_item_metadata import GetMemoryResponse200ItemsItemMetadata # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        agent_id = d.pop("agent_id")

        memory_type = GetMemoryResponse200ItemsItemMemoryType(d.pop("memory_type"))




        content = d.pop("content")

        metadata = GetMemoryResponse200ItemsItemMetadata.from_dict(d.pop("metadata"))




        merged_from = cast(list[str], d.pop("merged_from"))


        embedding = GetMemoryResponse200ItemsItemEmbedding.from_dict(d.pop("embedding"))




        created_at = d.pop("created_at")

        updated_at = d.pop("updated_at")

        get_memory_response_200_items_item = cls(
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

        return get_memory_response_200_items_item

