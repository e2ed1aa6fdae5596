from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from typing import Literal, cast






T = TypeVar("T", bound="PatchAgentsAgentIdResponse200ConfigToolsItemType3")



@_attrs_define
class PatchAgentsAgentIdResponse200ConfigToolsItemType3:
    """ 
        Attributes:
            type_ (Literal['mcp']):
            name (str):
            server_url (str):
            header_names (list[str] | Unset):
            allowed_tools (list[str] | Unset):
     """

    type_: Literal['mcp']
    name: str
    server_url: str
    header_names: list[str] | Unset = UNSET
    allowed_tools: list[str] | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        name = self.name

        server_url = self.server_url

        header_names: list[str] | Unset = UNSET
        if not isinstance(self.header_names, Unset):
            header_names = self.header_names



        allowed_tools: list[str] | Unset = UNSET
        if not isinstance(self.allowed_tools, Unset):
            allowed_tools = self.allowed_tools




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "type": type_,
            "name": name,
            "server_url": server_url,
        })
        if header_names is not UNSET:
            field_dict["header_names"] = header_names
        if allowed_tools is not UNSET:
            field_dict["allowed_tools"] = allowed_tools

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = cast(Literal['mcp'] , d.pop("type"))
        if type_ != 'mcp':
            raise ValueError(f"type must match const 'mcp', got '{type_}'")

        name = d.pop("name")

        server_url = d.pop("server_url")

        header_names = cast(list[str], d.pop("header_names", UNSET))


        allowed_tools = cast(list[str], d.pop("allowed_tools", UNSET))


        patch_agents_agent_id_response_200_config_tools_item_type_3 = cls(
            type_=type_,
            name=name,
            server_url=server_url,
            header_names=header_names,
            allowed_tools=allowed_tools,
        )

        return patch_agents_agent_id_response_200_config_tools_item_type_3

