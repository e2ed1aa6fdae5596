from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.patch_agents_agent_id_response_200_memory_types_item import PatchAgentsAgentIdResponse200MemoryTypesItem
from ..models.patch_agents_agent_id_response_200_status import PatchAgentsAgentIdResponse200Status
from ..models.patch_agents_agent_id_response_200_type import PatchAgentsAgentIdResponse200Type
from typing import cast

if TYPE_CHECKING:
  from ..models.patch_agents_agent_id_response_200_config import PatchAgentsAgentIdResponse200Config





T = TypeVar("T", bound="PatchAgentsAgentIdResponse200")



@_attrs_define
class PatchAgentsAgentIdResponse200:
    """ 
        Attributes:
            id (str):
            name (str):
            type_ (PatchAgentsAgentIdResponse200Type):
            status (PatchAgentsAgentIdResponse200Status):
            description (str):
            memory_types (list[PatchAgentsAgentIdResponse200MemoryTypesItem]):
            config (PatchAgentsAgentIdResponse200Config):
            created_at (str):
            updated_at (str):
     """

    id: str
    name: str
    type_: PatchAgentsAgentIdResponse200Type
    status: PatchAgentsAgentIdResponse200Status
    description: str
    memory_types: list[PatchAgentsAgentIdResponse200MemoryTypesItem]
    config: PatchAgentsAgentIdResponse200Config
    created_at: str
    updated_at: str





    def to_dict(self) -> dict[str, Any]:
        from ..models.patch_agents_agent_id_response_200_config import PatchAgentsAgentIdResponse200Config # noqa: PLC0415
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
        from ..models.patch_agents_agent_id_response_200_config import PatchAgentsAgentIdResponse200Config # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        type_ = PatchAgentsAgentIdResponse200Type(d.pop("type"))




        status = PatchAgentsAgentIdResponse200Status(d.pop("status"))




        description = d.pop("description")

        memory_types = []
        _memory_types = d.pop("memory_types")
        for memory_types_item_data in (_memory_types):
            memory_types_item = PatchAgentsAgentIdResponse200MemoryTypesItem(memory_types_item_data)



            memory_types.append(memory_types_item)


        config = PatchAgentsAgentIdResponse200Config.from_dict(d.pop("config"))




        created_at = d.pop("created_at")

        updated_at = d.pop("updated_at")

        patch_agents_agent_id_response_200 = cls(
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

        return patch_agents_agent_id_response_200

