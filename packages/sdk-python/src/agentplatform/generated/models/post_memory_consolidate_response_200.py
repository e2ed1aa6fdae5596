from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.post_memory_consolidate_response_200_groups_item import PostMemoryConsolidateResponse200GroupsItem





T = TypeVar("T", bound="PostMemoryConsolidateResponse200")



@_attrs_define
class PostMemoryConsolidateResponse200:
    """ 
        Attributes:
            merged (int): Groups of duplicates merged into one item each
            removed (int): Items removed because another absorbed them
            remaining (int):
            groups (list[PostMemoryConsolidateResponse200GroupsItem]):
     """

    merged: int
    removed: int
    remaining: int
    groups: list[PostMemoryConsolidateResponse200GroupsItem]





    def to_dict(self) -> dict[str, Any]:
        from ..models.post_memory_consolidate_response_200_groups_item import PostMemoryConsolidateResponse200GroupsItem # noqa: PLC0415
        merged = self.merged

        removed = self.removed

        remaining = self.remaining

        groups = []
        for groups_item_data in self.groups:
            groups_item = groups_item_data.to_dict()
            groups.append(groups_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "merged": merged,
            "removed": removed,
            "remaining": remaining,
            "groups": groups,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.post_memory_consolidate_response_200_groups_item import PostMemoryConsolidateResponse200GroupsItem # noqa: PLC0415
        d = dict(src_dict)
        merged = d.pop("merged")

        removed = d.pop("removed")

        remaining = d.pop("remaining")

        groups = []
        _groups = d.pop("groups")
        for groups_item_data in (_groups):
            groups_item = PostMemoryConsolidateResponse200GroupsItem.from_dict(groups_item_data)



            groups.append(groups_item)


        post_memory_consolidate_response_200 = cls(
            merged=merged,
            removed=removed,
            remaining=remaining,
            groups=groups,
        )

        return post_memory_consolidate_response_200

