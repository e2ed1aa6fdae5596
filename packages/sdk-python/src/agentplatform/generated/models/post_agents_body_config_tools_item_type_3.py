from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.post_agents_body_config_tools_item_type_3_method import PostAgentsBodyConfigToolsItemType3Method
from ..types import UNSET, Unset
from typing import cast
from typing import Literal, cast

if TYPE_CHECKING:
  from ..models.post_agents_body_config_tools_item_type_3_headers import PostAgentsBodyConfigToolsItemType3Headers
  from ..models.post_agents_body_config_tools_item_type_3_input_schema import PostAgentsBodyConfigToolsItemType3InputSchema





T = TypeVar("T", bound="PostAgentsBodyConfigToolsItemType3")



@_attrs_define
class PostAgentsBodyConfigToolsItemType3:
    """ An HTTP call through the SSRF guard: arguments as JSON body (GET, DELETE: as query); a non-2xx answer is an error
    step

        Attributes:
            type_ (Literal['http']):
            name (str): The tool name the model sees: 1 to 64 characters of [A-Za-z0-9_-]
            url (str): http(s) URL; `{{args.<name>}}` is replaced by that argument, URL-encoded
            description (str | Unset):
            method (PostAgentsBodyConfigToolsItemType3Method | Unset): Default: POST
            headers (PostAgentsBodyConfigToolsItemType3Headers | Unset): Header name -> value. Values are encrypted at rest
                and never returned (answers show header_names)
            input_schema (PostAgentsBodyConfigToolsItemType3InputSchema | Unset): JSON Schema (type "object") of the
                arguments the model gives
     """

    type_: Literal['http']
    name: str
    url: str
    description: str | Unset = UNSET
    method: PostAgentsBodyConfigToolsItemType3Method | Unset = UNSET
    headers: PostAgentsBodyConfigToolsItemType3Headers | Unset = UNSET
    input_schema: PostAgentsBodyConfigToolsItemType3InputSchema | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.post_agents_body_config_tools_item_type_3_headers import PostAgentsBodyConfigToolsItemType3Headers # noqa: PLC0415
        from ..models.post_agents_body_config_tools_item_type_3_input_schema import PostAgentsBodyConfigToolsItemType3InputSchema # noqa: PLC0415
        type_ = self.type_

        name = self.name

        url = self.url

        description = self.description

        method: str | Unset = UNSET
        if not isinstance(self.method, Unset):
            method = self.method.value


        headers: dict[str, Any] | Unset = UNSET
        if not isinstance(self.headers, Unset):
            headers = self.headers.to_dict()

        input_schema: dict[str, Any] | Unset = UNSET
        if not isinstance(self.input_schema, Unset):
            input_schema = self.input_schema.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "type": type_,
            "name": name,
            "url": url,
        })
        if description is not UNSET:
            field_dict["description"] = description
        if method is not UNSET:
            field_dict["method"] = method
        if headers is not UNSET:
            field_dict["headers"] = headers
        if input_schema is not UNSET:
            field_dict["input_schema"] = input_schema

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.post_agents_body_config_tools_item_type_3_headers import PostAgentsBodyConfigToolsItemType3Headers # noqa: PLC0415
        from ..models.post_agents_body_config_tools_item_type_3_input_schema import PostAgentsBodyConfigToolsItemType3InputSchema # noqa: PLC0415
        d = dict(src_dict)
        type_ = cast(Literal['http'] , d.pop("type"))
        if type_ != 'http':
            raise ValueError(f"type must match const 'http', got '{type_}'")

        name = d.pop("name")

        url = d.pop("url")

        description = d.pop("description", UNSET)

        _method = d.pop("method", UNSET)
        method: PostAgentsBodyConfigToolsItemType3Method | Unset
        if isinstance(_method,  Unset):
            method = UNSET
        else:
            method = PostAgentsBodyConfigToolsItemType3Method(_method)




        _headers = d.pop("headers", UNSET)
        headers: PostAgentsBodyConfigToolsItemType3Headers | Unset
        if isinstance(_headers,  Unset):
            headers = UNSET
        else:
            headers = PostAgentsBodyConfigToolsItemType3Headers.from_dict(_headers)




        _input_schema = d.pop("input_schema", UNSET)
        input_schema: PostAgentsBodyConfigToolsItemType3InputSchema | Unset
        if isinstance(_input_schema,  Unset):
            input_schema = UNSET
        else:
            input_schema = PostAgentsBodyConfigToolsItemType3InputSchema.from_dict(_input_schema)




        post_agents_body_config_tools_item_type_3 = cls(
            type_=type_,
            name=name,
            url=url,
            description=description,
            method=method,
            headers=headers,
            input_schema=input_schema,
        )


        post_agents_body_config_tools_item_type_3.additional_properties = d
        return post_agents_body_config_tools_item_type_3

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
