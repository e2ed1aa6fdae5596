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
  from ..models.get_agents_agent_id_response_200_config_tools_item_type_1_input_schema import GetAgentsAgentIdResponse200ConfigToolsItemType1InputSchema





T = TypeVar("T", bound="GetAgentsAgentIdResponse200ConfigToolsItemType1")



@_attrs_define
class GetAgentsAgentIdResponse200ConfigToolsItemType1:
    """ 
        Attributes:
            type_ (Literal['workflow']):
            workflow_id (str):
            name (str | Unset):
            description (str | Unset):
            input_schema (GetAgentsAgentIdResponse200ConfigToolsItemType1InputSchema | Unset): JSON Schema (type "object")
                of the arguments the model gives
     """

    type_: Literal['workflow']
    workflow_id: str
    name: str | Unset = UNSET
    description: str | Unset = UNSET
    input_schema: GetAgentsAgentIdResponse200ConfigToolsItemType1InputSchema | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.get_agents_agent_id_response_200_config_tools_item_type_1_input_schema import GetAgentsAgentIdResponse200ConfigToolsItemType1InputSchema # noqa: PLC0415
        type_ = self.type_

        workflow_id = self.workflow_id

        name = self.name

        description = self.description

        input_schema: dict[str, Any] | Unset = UNSET
        if not isinstance(self.input_schema, Unset):
            input_schema = self.input_schema.to_dict()


        field_dict: dict[str, Any] = {}

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
        from ..models.get_agents_agent_id_response_200_config_tools_item_type_1_input_schema import GetAgentsAgentIdResponse200ConfigToolsItemType1InputSchema # noqa: PLC0415
        d = dict(src_dict)
        type_ = cast(Literal['workflow'] , d.pop("type"))
        if type_ != 'workflow':
            raise ValueError(f"type must match const 'workflow', got '{type_}'")

        workflow_id = d.pop("workflow_id")

        name = d.pop("name", UNSET)

        description = d.pop("description", UNSET)

        _input_schema = d.pop("input_schema", UNSET)
        input_schema: GetAgentsAgentIdResponse200ConfigToolsItemType1InputSchema | Unset
        if isinstance(_input_schema,  Unset):
            input_schema = UNSET
        else:
            input_schema = GetAgentsAgentIdResponse200ConfigToolsItemType1InputSchema.from_dict(_input_schema)




        get_agents_agent_id_response_200_config_tools_item_type_1 = cls(
            type_=type_,
            workflow_id=workflow_id,
            name=name,
            description=description,
            input_schema=input_schema,
        )

        return get_agents_agent_id_response_200_config_tools_item_type_1

