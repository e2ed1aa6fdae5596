from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.get_agents_response_200_agents_item_memory_types_item import GetAgentsResponse200AgentsItemMemoryTypesItem
from ..models.get_agents_response_200_agents_item_status import GetAgentsResponse200AgentsItemStatus
from ..models.get_agents_response_200_agents_item_type import GetAgentsResponse200AgentsItemType
from typing import cast

if TYPE_CHECKING:
  from ..models.get_agents_response_200_agents_item_config import GetAgentsResponse200AgentsItemConfig





T = TypeVar("T", bound="GetAgentsResponse200AgentsItem")



@_attrs_define
class GetAgentsResponse200AgentsItem:
    """ 
        Attributes:
            id (str):
            name (str):
            type_ (GetAgentsResponse200AgentsItemType):
            status (GetAgentsResponse200AgentsItemStatus):
            description (str):
            memory_types (list[GetAgentsResponse200AgentsItemMemoryTypesItem]):
            config (GetAgentsResponse200AgentsItemConfig):
            created_at (str):
            updated_at (str):
     """

    id: str
    name: str
    type_: GetAgentsResponse200AgentsItemType
    status: GetAgentsResponse200AgentsItemStatus
    description: str
    memory_types: list[GetAgentsResponse200AgentsItemMemoryTypesItem]
    config: GetAgentsResponse200AgentsItemConfig
    created_at: str
    updated_at: str





    def to_dict(self) -> dict[str, Any]:
        from ..models.get_agents_response_200_agents_item_config import GetAgentsResponse200AgentsItemConfig # noqa: PLC0415
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
        from ..models.get_agents_response_200_agents_item_config import GetAgentsResponse200AgentsItemConfig # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        type_ = GetAgentsResponse200AgentsItemType(d.pop("type"))




        status = GetAgentsResponse200AgentsItemStatus(d.pop("status"))




        description = d.pop("description")

        memory_types = []
        _memory_types = d.pop("memory_types")
        for memory_types_item_data in (_memory_types):
            memory_types_item = GetAgentsResponse200AgentsItemMemoryTypesItem(memory_types_item_data)



            memory_types.append(memory_types_item)


        config = GetAgentsResponse200AgentsItemConfig.from_dict(d.pop("config"))




        created_at = d.pop("created_at")

        updated_at = d.pop("updated_at")

        get_agents_response_200_agents_item = cls(
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

        return get_agents_response_200_agents_item

