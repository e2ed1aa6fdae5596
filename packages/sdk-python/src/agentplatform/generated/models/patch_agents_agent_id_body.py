from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.patch_agents_agent_id_body_memory_types_item import PatchAgentsAgentIdBodyMemoryTypesItem
from ..models.patch_agents_agent_id_body_status import PatchAgentsAgentIdBodyStatus
from ..models.patch_agents_agent_id_body_type import PatchAgentsAgentIdBodyType
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.patch_agents_agent_id_body_config import PatchAgentsAgentIdBodyConfig





T = TypeVar("T", bound="PatchAgentsAgentIdBody")



@_attrs_define
class PatchAgentsAgentIdBody:
    """ 
        Attributes:
            name (str | Unset):
            type_ (PatchAgentsAgentIdBodyType | Unset):
            description (str | Unset):
            memory_types (list[PatchAgentsAgentIdBodyMemoryTypesItem] | Unset):
            config (PatchAgentsAgentIdBodyConfig | Unset):
            status (PatchAgentsAgentIdBodyStatus | Unset):
     """

    name: str | Unset = UNSET
    type_: PatchAgentsAgentIdBodyType | Unset = UNSET
    description: str | Unset = UNSET
    memory_types: list[PatchAgentsAgentIdBodyMemoryTypesItem] | Unset = UNSET
    config: PatchAgentsAgentIdBodyConfig | Unset = UNSET
    status: PatchAgentsAgentIdBodyStatus | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.patch_agents_agent_id_body_config import PatchAgentsAgentIdBodyConfig # noqa: PLC0415
        name = self.name

        type_: str | Unset = UNSET
        if not isinstance(self.type_, Unset):
            type_ = self.type_.value


        description = self.description

        memory_types: list[str] | Unset = UNSET
        if not isinstance(self.memory_types, Unset):
            memory_types = []
            for memory_types_item_data in self.memory_types:
                memory_types_item = memory_types_item_data.value
                memory_types.append(memory_types_item)



        config: dict[str, Any] | Unset = UNSET
        if not isinstance(self.config, Unset):
            config = self.config.to_dict()

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status.value



        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if name is not UNSET:
            field_dict["name"] = name
        if type_ is not UNSET:
            field_dict["type"] = type_
        if description is not UNSET:
            field_dict["description"] = description
        if memory_types is not UNSET:
            field_dict["memory_types"] = memory_types
        if config is not UNSET:
            field_dict["config"] = config
        if status is not UNSET:
            field_dict["status"] = status

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.patch_agents_agent_id_body_config import PatchAgentsAgentIdBodyConfig # noqa: PLC0415
        d = dict(src_dict)
        name = d.pop("name", UNSET)

        _type_ = d.pop("type", UNSET)
        type_: PatchAgentsAgentIdBodyType | Unset
        if isinstance(_type_,  Unset):
            type_ = UNSET
        else:
            type_ = PatchAgentsAgentIdBodyType(_type_)




        description = d.pop("description", UNSET)

        _memory_types = d.pop("memory_types", UNSET)
        memory_types: list[PatchAgentsAgentIdBodyMemoryTypesItem] | Unset = UNSET
        if _memory_types is not UNSET:
            memory_types = []
            for memory_types_item_data in _memory_types:
                memory_types_item = PatchAgentsAgentIdBodyMemoryTypesItem(memory_types_item_data)



                memory_types.append(memory_types_item)


        _config = d.pop("config", UNSET)
        config: PatchAgentsAgentIdBodyConfig | Unset
        if isinstance(_config,  Unset):
            config = UNSET
        else:
            config = PatchAgentsAgentIdBodyConfig.from_dict(_config)




        _status = d.pop("status", UNSET)
        status: PatchAgentsAgentIdBodyStatus | Unset
        if isinstance(_status,  Unset):
            status = UNSET
        else:
            status = PatchAgentsAgentIdBodyStatus(_status)




        patch_agents_agent_id_body = cls(
            name=name,
            type_=type_,
            description=description,
            memory_types=memory_types,
            config=config,
            status=status,
        )


        patch_agents_agent_id_body.additional_properties = d
        return patch_agents_agent_id_body

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
