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
  from ..models.patch_agents_agent_id_body_config_tools_type_0_item_type_2_input_schema import PatchAgentsAgentIdBodyConfigToolsType0ItemType2InputSchema





T = TypeVar("T", bound="PatchAgentsAgentIdBodyConfigToolsType0ItemType2")



@_attrs_define
class PatchAgentsAgentIdBodyConfigToolsType0ItemType2:
    """ Runs the workflow with the arguments as input; the result is the execution's output (1 credit per run)

        Attributes:
            type_ (Literal['workflow']):
            workflow_id (str): A workflow of the same tenant
            name (str | Unset): Default: workflow_<workflow_id>
            description (str | Unset):
            input_schema (PatchAgentsAgentIdBodyConfigToolsType0ItemType2InputSchema | Unset): JSON Schema (type "object")
                of the arguments the model gives
     """

    type_: Literal['workflow']
    workflow_id: str
    name: str | Unset = UNSET
    description: str | Unset = UNSET
    input_schema: PatchAgentsAgentIdBodyConfigToolsType0ItemType2InputSchema | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.patch_agents_agent_id_body_config_tools_type_0_item_type_2_input_schema import PatchAgentsAgentIdBodyConfigToolsType0ItemType2InputSchema # noqa: PLC0415
        type_ = self.type_

        workflow_id = self.workflow_id

        name = self.name

        description = self.description

        input_schema: dict[str, Any] | Unset = UNSET
        if not isinstance(self.input_schema, Unset):
            input_schema = self.input_schema.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "type": type_,
            "workflow_id": workflow_id,
        })
        if name is not UNSET:
            field_dict["name"] = name
        if description is not UNSET:
            field_dict["description"] = description
        if input_schema is not UNSET:
            field_dict["input_schema"] = input_schema

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.patch_agents_agent_id_body_config_tools_type_0_item_type_2_input_schema import PatchAgentsAgentIdBodyConfigToolsType0ItemType2InputSchema # noqa: PLC0415
        d = dict(src_dict)
        type_ = cast(Literal['workflow'] , d.pop("type"))
        if type_ != 'workflow':
            raise ValueError(f"type must match const 'workflow', got '{type_}'")

        workflow_id = d.pop("workflow_id")

        name = d.pop("name", UNSET)

        description = d.pop("description", UNSET)

        _input_schema = d.pop("input_schema", UNSET)
        input_schema: PatchAgentsAgentIdBodyConfigToolsType0ItemType2InputSchema | Unset
        if isinstance(_input_schema,  Unset):
            input_schema = UNSET
        else:
            input_schema = PatchAgentsAgentIdBodyConfigToolsType0ItemType2InputSchema.from_dict(_input_schema)




        patch_agents_agent_id_body_config_tools_type_0_item_type_2 = cls(
            type_=type_,
            workflow_id=workflow_id,
            name=name,
            description=description,
            input_schema=input_schema,
        )


        patch_agents_agent_id_body_config_tools_type_0_item_type_2.additional_properties = d
        return patch_agents_agent_id_body_config_tools_type_0_item_type_2

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
