from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.post_memory_batch_response_201_items_item_memory_type import PostMemoryBatchResponse201ItemsItemMemoryType
from typing import cast

if TYPE_CHECKING:
  from ..models.post_memory_batch_response_201_items_item_embedding import PostMemoryBatchResponse201ItemsItemEmbedding
  from ..models.post_memory_batch_response_201_items_item_metadata import PostMemoryBatchResponse201ItemsItemMetadata





T = TypeVar("T", bound="PostMemoryBatchResponse201ItemsItem")



@_attrs_define
class PostMemoryBatchResponse201ItemsItem:
    """ 
        Attributes:
            id (str):
            agent_id (str):
            memory_type (PostMemoryBatchResponse201ItemsItemMemoryType):
            content (str):
            metadata (PostMemoryBatchResponse201ItemsItemMetadata): Free-form JSON object (e.g. source, category)
            merged_from (list[str]): Ids of the items consolidation merged into this one
            embedding (PostMemoryBatchResponse201ItemsItemEmbedding):
            created_at (str):
            updated_at (str):
     """

    id: str
    agent_id: str
    memory_type: PostMemoryBatchResponse201ItemsItemMemoryType
    content: str
    metadata: PostMemoryBatchResponse201ItemsItemMetadata
    merged_from: list[str]
    embedding: PostMemoryBatchResponse201ItemsItemEmbedding
    created_at: str
    updated_at: str





    def to_dict(self) -> dict[str, Any]:
        from ..models.post_memory_batch_response_201_items_item_embedding import PostMemoryBatchResponse201ItemsItemEmbedding # noqa: PLC0415
        from ..models.post_memory_batch_response_201_items_item_metadata import PostMemoryBatchResponse201ItemsItemMetadata # noqa: PLC0415
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
        from ..models.post_memory_batch_response_201_items_item_embedding import PostMemoryBatchResponse201ItemsItemEmbedding # noqa: PLC0415
        from ..models.post_memory_batch_response_201_items_item_metadata import PostMemoryBatchResponse201ItemsItemMetadata # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        agent_id = d.pop("agent_id")

        memory_type = PostMemoryBatchResponse201ItemsItemMemoryType(d.pop("memory_type"))




        content = d.pop("content")

        metadata = PostMemoryBatchResponse201ItemsItemMetadata.from_dict(d.pop("metadata"))




        merged_from = cast(list[str], d.pop("merged_from"))


        embedding = PostMemoryBatchResponse201ItemsItemEmbedding.from_dict(d.pop("embedding"))




        created_at = d.pop("created_at")

        updated_at = d.pop("updated_at")

        post_memory_batch_response_201_items_item = cls(
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

        return post_memory_batch_response_201_items_item

