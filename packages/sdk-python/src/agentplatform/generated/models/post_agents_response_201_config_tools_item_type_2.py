from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from typing import Literal, cast

if TYPE_CHECKING:
  from ..models.post_agents_response_201_config_tools_item_type_2_input_schema import PostAgentsResponse201ConfigToolsItemType2InputSchema





T = TypeVar("T", bound="PostAgentsResponse201ConfigToolsItemType2")



@_attrs_define
class PostAgentsResponse201ConfigToolsItemType2:
    """ 
        Attributes:
            type_ (Literal['http']):
            name (str):
            description (str):
            url (str):
            method (str):
            header_names (list[str] | Unset):
            input_schema (PostAgentsResponse201ConfigToolsItemType2InputSchema | Unset): JSON Schema (type "object") of the
                arguments the model gives
     """

    type_: Literal['http']
    name: str
    description: str
    url: str
    method: str
    header_names: list[str] | Unset = UNSET
    input_schema: PostAgentsResponse201ConfigToolsItemType2InputSchema | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.post_agents_response_201_config_tools_item_type_2_input_schema import PostAgentsResponse201ConfigToolsItemType2InputSchema # noqa: PLC0415
        type_ = self.type_

        name = self.name

        description = self.description

        url = self.url

        method = self.method

        header_names: list[str] | Unset = UNSET
        if not isinstance(self.header_names, Unset):
            header_names = self.header_names



        input_schema: dict[str, Any] | Unset = UNSET
        if not isinstance(self.input_schema, Unset):
            input_schema = self.input_schema.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "type": type_,
            "name": name,
            "description": description,
            "url": url,
            "method": method,
        })
        if header_names is not UNSET:
            field_dict["header_names"] = header_names
        if input_schema is not UNSET:
            field_dict["input_schema"] = input_schema

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.post_agents_response_201_config_tools_item_type_2_input_schema import PostAgentsResponse201ConfigToolsItemType2InputSchema # noqa: PLC0415
        d = dict(src_dict)
        type_ = cast(Literal['http'] , d.pop("type"))
        if type_ != 'http':
            raise ValueError(f"type must match const 'http', got '{type_}'")

        name = d.pop("name")

        description = d.pop("description")

        url = d.pop("url")

        method = d.pop("method")

        header_names = cast(list[str], d.pop("header_names", UNSET))


        _input_schema = d.pop("input_schema", UNSET)
        input_schema: PostAgentsResponse201ConfigToolsItemType2InputSchema | Unset
        if isinstance(_input_schema,  Unset):
            input_schema = UNSET
        else:
            input_schema = PostAgentsResponse201ConfigToolsItemType2InputSchema.from_dict(_input_schema)




        post_agents_response_201_config_tools_item_type_2 = cls(
            type_=type_,
            name=name,
            description=description,
            url=url,
            method=method,
            header_names=header_names,
            input_schema=input_schema,
        )

        return post_agents_response_201_config_tools_item_type_2

