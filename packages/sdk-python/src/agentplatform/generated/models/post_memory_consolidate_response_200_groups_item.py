from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="PostMemoryConsolidateResponse200GroupsItem")



@_attrs_define
class PostMemoryConsolidateResponse200GroupsItem:
    """ 
        Attributes:
            kept_id (str):
            merged_ids (list[str]):
     """

    kept_id: str
    merged_ids: list[str]





    def to_dict(self) -> dict[str, Any]:
        kept_id = self.kept_id

        merged_ids = self.merged_ids




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "kept_id": kept_id,
            "merged_ids": merged_ids,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        kept_id = d.pop("kept_id")

        merged_ids = cast(list[str], d.pop("merged_ids"))


        post_memory_consolidate_response_200_groups_item = cls(
            kept_id=kept_id,
            merged_ids=merged_ids,
        )

        return post_memory_consolidate_response_200_groups_item

