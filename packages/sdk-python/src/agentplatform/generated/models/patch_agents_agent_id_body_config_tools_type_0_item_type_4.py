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
  from ..models.patch_agents_agent_id_body_config_tools_type_0_item_type_4_headers import PatchAgentsAgentIdBodyConfigToolsType0ItemType4Headers





T = TypeVar("T", bound="PatchAgentsAgentIdBodyConfigToolsType0ItemType4")



@_attrs_define
class PatchAgentsAgentIdBodyConfigToolsType0ItemType4:
    """ The tools of a remote MCP server, listed when a chat starts (cached briefly)

        Attributes:
            type_ (Literal['mcp']):
            name (str): The server name: its tools are named <name>__<tool>
            server_url (str): A remote MCP server (Streamable HTTP)
            headers (PatchAgentsAgentIdBodyConfigToolsType0ItemType4Headers | Unset): Header name -> value. Values are
                encrypted at rest and never returned (answers show header_names)
            allowed_tools (list[str] | Unset): Only these tools of the server; default all
     """

    type_: Literal['mcp']
    name: str
    server_url: str
    headers: PatchAgentsAgentIdBodyConfigToolsType0ItemType4Headers | Unset = UNSET
    allowed_tools: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.patch_agents_agent_id_body_config_tools_type_0_item_type_4_headers import PatchAgentsAgentIdBodyConfigToolsType0ItemType4Headers # noqa: PLC0415
        type_ = self.type_

        name = self.name

        server_url = self.server_url

        headers: dict[str, Any] | Unset = UNSET
        if not isinstance(self.headers, Unset):
            headers = self.headers.to_dict()

        allowed_tools: list[str] | Unset = UNSET
        if not isinstance(self.allowed_tools, Unset):
            allowed_tools = self.allowed_tools




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "type": type_,
            "name": name,
            "server_url": server_url,
        })
        if headers is not UNSET:
            field_dict["headers"] = headers
        if allowed_tools is not UNSET:
            field_dict["allowed_tools"] = allowed_tools

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.patch_agents_agent_id_body_config_tools_type_0_item_type_4_headers import PatchAgentsAgentIdBodyConfigToolsType0ItemType4Headers # noqa: PLC0415
        d = dict(src_dict)
        type_ = cast(Literal['mcp'] , d.pop("type"))
        if type_ != 'mcp':
            raise ValueError(f"type must match const 'mcp', got '{type_}'")

        name = d.pop("name")

        server_url = d.pop("server_url")

        _headers = d.pop("headers", UNSET)
        headers: PatchAgentsAgentIdBodyConfigToolsType0ItemType4Headers | Unset
        if isinstance(_headers,  Unset):
            headers = UNSET
        else:
            headers = PatchAgentsAgentIdBodyConfigToolsType0ItemType4Headers.from_dict(_headers)




        allowed_tools = cast(list[str], d.pop("allowed_tools", UNSET))


        patch_agents_agent_id_body_config_tools_type_0_item_type_4 = cls(
            type_=type_,
            name=name,
            server_url=server_url,
            headers=headers,
            allowed_tools=allowed_tools,
        )


        patch_agents_agent_id_body_config_tools_type_0_item_type_4.additional_properties = d
        return patch_agents_agent_id_body_config_tools_type_0_item_type_4

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
