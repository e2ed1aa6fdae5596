from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.post_agents_response_201_config_tools_item_type_0_type import PostAgentsResponse201ConfigToolsItemType0Type






T = TypeVar("T", bound="PostAgentsResponse201ConfigToolsItemType0")



@_attrs_define
class PostAgentsResponse201ConfigToolsItemType0:
    """ 
        Attributes:
            type_ (PostAgentsResponse201ConfigToolsItemType0Type):
     """

    type_: PostAgentsResponse201ConfigToolsItemType0Type





    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = PostAgentsResponse201ConfigToolsItemType0Type(d.pop("type"))




        post_agents_response_201_config_tools_item_type_0 = cls(
            type_=type_,
        )

        return post_agents_response_201_config_tools_item_type_0

