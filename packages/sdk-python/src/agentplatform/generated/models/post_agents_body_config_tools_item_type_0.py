from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import Literal, cast






T = TypeVar("T", bound="PostAgentsBodyConfigToolsItemType0")



@_attrs_define
class PostAgentsBodyConfigToolsItemType0:
    """ Search the agent's memory: {query, top_k?}

        Attributes:
            type_ (Literal['memory_search']):
     """

    type_: Literal['memory_search']
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = cast(Literal['memory_search'] , d.pop("type"))
        if type_ != 'memory_search':
            raise ValueError(f"type must match const 'memory_search', got '{type_}'")

        post_agents_body_config_tools_item_type_0 = cls(
            type_=type_,
        )


        post_agents_body_config_tools_item_type_0.additional_properties = d
        return post_agents_body_config_tools_item_type_0

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
