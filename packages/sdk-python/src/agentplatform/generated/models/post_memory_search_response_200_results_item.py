from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.post_memory_search_response_200_results_item_memory_type import PostMemorySearchResponse200ResultsItemMemoryType
from typing import cast

if TYPE_CHECKING:
  from ..models.post_memory_search_response_200_results_item_metadata import PostMemorySearchResponse200ResultsItemMetadata





T = TypeVar("T", bound="PostMemorySearchResponse200ResultsItem")



@_attrs_define
class PostMemorySearchResponse200ResultsItem:
    """ 
        Attributes:
            id (str):
            content (str):
            score (float): Fused lexical (BM25) and embedding score; higher is better
            metadata (PostMemorySearchResponse200ResultsItemMetadata): Free-form JSON object (e.g. source, category)
            memory_type (PostMemorySearchResponse200ResultsItemMemoryType):
            created_at (str):
     """

    id: str
    content: str
    score: float
    metadata: PostMemorySearchResponse200ResultsItemMetadata
    memory_type: PostMemorySearchResponse200ResultsItemMemoryType
    created_at: str





    def to_dict(self) -> dict[str, Any]:
        from ..models.post_memory_search_response_200_results_item_metadata import PostMemorySearchResponse200ResultsItemMetadata # noqa: PLC0415
        id = self.id

        content = self.content

        score = self.score

        metadata = self.metadata.to_dict()

        memory_type = self.memory_type.value

        created_at = self.created_at


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "content": content,
            "score": score,
            "metadata": metadata,
            "memory_type": memory_type,
            "created_at": created_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.post_memory_search_response_200_results_item_metadata import PostMemorySearchResponse200ResultsItemMetadata # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        content = d.pop("content")

        score = d.pop("score")

        metadata = PostMemorySearchResponse200ResultsItemMetadata.from_dict(d.pop("metadata"))




        memory_type = PostMemorySearchResponse200ResultsItemMemoryType(d.pop("memory_type"))




        created_at = d.pop("created_at")

        post_memory_search_response_200_results_item = cls(
            id=id,
            content=content,
            score=score,
            metadata=metadata,
            memory_type=memory_type,
            created_at=created_at,
        )

        return post_memory_search_response_200_results_item

