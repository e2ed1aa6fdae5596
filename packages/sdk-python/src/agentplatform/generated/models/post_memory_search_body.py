from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.post_memory_search_body_memory_type import PostMemorySearchBodyMemoryType
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.post_memory_search_body_filters import PostMemorySearchBodyFilters





T = TypeVar("T", bound="PostMemorySearchBody")



@_attrs_define
class PostMemorySearchBody:
    """ 
        Attributes:
            agent_id (str):
            query (str):
            memory_type (PostMemorySearchBodyMemoryType | Unset):
            top_k (int | Unset):  Default: 10.
            filters (PostMemorySearchBodyFilters | Unset): Metadata filters, all of which must hold: `{"category":
                "billing"}` (equality) or `{"priority": {"gte": 2, "lt": 5}}` with operators eq, ne, in (array), gt, gte, lt,
                lte (numbers or strings), contains (substring, case-insensitive, or array element). Dotted keys reach nested
                metadata.
            min_score (float | Unset):
     """

    agent_id: str
    query: str
    memory_type: PostMemorySearchBodyMemoryType | Unset = UNSET
    top_k: int | Unset = 10
    filters: PostMemorySearchBodyFilters | Unset = UNSET
    min_score: float | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.post_memory_search_body_filters import PostMemorySearchBodyFilters # noqa: PLC0415
        agent_id = self.agent_id

        query = self.query

        memory_type: str | Unset = UNSET
        if not isinstance(self.memory_type, Unset):
            memory_type = self.memory_type.value


        top_k = self.top_k

        filters: dict[str, Any] | Unset = UNSET
        if not isinstance(self.filters, Unset):
            filters = self.filters.to_dict()

        min_score = self.min_score


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "agent_id": agent_id,
            "query": query,
        })
        if memory_type is not UNSET:
            field_dict["memory_type"] = memory_type
        if top_k is not UNSET:
            field_dict["top_k"] = top_k
        if filters is not UNSET:
            field_dict["filters"] = filters
        if min_score is not UNSET:
            field_dict["min_score"] = min_score

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.post_memory_search_body_filters import PostMemorySearchBodyFilters # noqa: PLC0415
        d = dict(src_dict)
        agent_id = d.pop("agent_id")

        query = d.pop("query")

        _memory_type = d.pop("memory_type", UNSET)
        memory_type: PostMemorySearchBodyMemoryType | Unset
        if isinstance(_memory_type,  Unset):
            memory_type = UNSET
        else:
            memory_type = PostMemorySearchBodyMemoryType(_memory_type)




        top_k = d.pop("top_k", UNSET)

        _filters = d.pop("filters", UNSET)
        filters: PostMemorySearchBodyFilters | Unset
        if isinstance(_filters,  Unset):
            filters = UNSET
        else:
            filters = PostMemorySearchBodyFilters.from_dict(_filters)




        min_score = d.pop("min_score", UNSET)

        post_memory_search_body = cls(
            agent_id=agent_id,
            query=query,
            memory_type=memory_type,
            top_k=top_k,
            filters=filters,
            min_score=min_score,
        )


        post_memory_search_body.additional_properties = d
        return post_memory_search_body

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
