from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.post_agents_response_201_memory_types_item import PostAgentsResponse201MemoryTypesItem
from ..models.post_agents_response_201_status import PostAgentsResponse201Status
from ..models.post_agents_response_201_type import PostAgentsResponse201Type
from typing import cast

if TYPE_CHECKING:
  from ..models.post_agents_response_201_config import PostAgentsResponse201Config





T = TypeVar("T", bound="PostAgentsResponse201")



@_attrs_define
class PostAgentsResponse201:
    """ 
        Attributes:
            id (str):
            name (str):
            type_ (PostAgentsResponse201Type):
            status (PostAgentsResponse201Status):
            description (str):
            memory_types (list[PostAgentsResponse201MemoryTypesItem]):
            config (PostAgentsResponse201Config):
            created_at (str):
            updated_at (str):
     """

    id: str
    name: str
    type_: PostAgentsResponse201Type
    status: PostAgentsResponse201Status
    description: str
    memory_types: list[PostAgentsResponse201MemoryTypesItem]
    config: PostAgentsResponse201Config
    created_at: str
    updated_at: str





    def to_dict(self) -> dict[str, Any]:
        from ..models.post_agents_response_201_config import PostAgentsResponse201Config # noqa: PLC0415
        id = self.id

        name = self.name

        type_ = self.type_.value

        status = self.status.value

        description = self.description

        memory_types = []
        for memory_types_item_data in self.memory_types:
            memory_types_item = memory_types_item_data.value
            memory_types.append(memory_types_item)



        config = self.config.to_dict()

        created_at = self.created_at

        updated_at = self.updated_at


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "name": name,
            "type": type_,
            "status": status,
            "description": description,
            "memory_types": memory_types,
            "config": config,
            "created_at": created_at,
            "updated_at": updated_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.post_agents_response_201_config import PostAgentsResponse201Config # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        type_ = PostAgentsResponse201Type(d.pop("type"))




        status = PostAgentsResponse201Status(d.pop("status"))




        description = d.pop("description")

        memory_types = []
        _memory_types = d.pop("memory_types")
        for memory_types_item_data in (_memory_types):
            memory_types_item = PostAgentsResponse201MemoryTypesItem(memory_types_item_data)



            memory_types.append(memory_types_item)


        config = PostAgentsResponse201Config.from_dict(d.pop("config"))




        created_at = d.pop("created_at")

        updated_at = d.pop("updated_at")

        post_agents_response_201 = cls(
            id=id,
            name=name,
            type_=type_,
            status=status,
            description=description,
            memory_types=memory_types,
            config=config,
            created_at=created_at,
            updated_at=updated_at,
        )

        return post_agents_response_201

