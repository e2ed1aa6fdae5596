from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.get_workflows_response_200_items_item_status import GetWorkflowsResponse200ItemsItemStatus
from ..models.get_workflows_response_200_items_item_trigger_type import GetWorkflowsResponse200ItemsItemTriggerType
from typing import cast






T = TypeVar("T", bound="GetWorkflowsResponse200ItemsItem")



@_attrs_define
class GetWorkflowsResponse200ItemsItem:
    """ 
        Attributes:
            id (str):
            name (str):
            description (str):
            status (GetWorkflowsResponse200ItemsItemStatus):
            trigger_type (GetWorkflowsResponse200ItemsItemTriggerType):
            last_run_at (None | str):
            next_run_at (None | str): the next schedule tick; null unless the workflow is active and scheduled
            created_at (str):
            updated_at (str):
     """

    id: str
    name: str
    description: str
    status: GetWorkflowsResponse200ItemsItemStatus
    trigger_type: GetWorkflowsResponse200ItemsItemTriggerType
    last_run_at: None | str
    next_run_at: None | str
    created_at: str
    updated_at: str





    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        description = self.description

        status = self.status.value

        trigger_type = self.trigger_type.value

        last_run_at: None | str
        last_run_at = self.last_run_at

        next_run_at: None | str
        next_run_at = self.next_run_at

        created_at = self.created_at

        updated_at = self.updated_at


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "name": name,
            "description": description,
            "status": status,
            "trigger_type": trigger_type,
            "last_run_at": last_run_at,
            "next_run_at": next_run_at,
            "created_at": created_at,
            "updated_at": updated_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        description = d.pop("description")

        status = GetWorkflowsResponse200ItemsItemStatus(d.pop("status"))




        trigger_type = GetWorkflowsResponse200ItemsItemTriggerType(d.pop("trigger_type"))




        def _parse_last_run_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_run_at = _parse_last_run_at(d.pop("last_run_at"))


        def _parse_next_run_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        next_run_at = _parse_next_run_at(d.pop("next_run_at"))


        created_at = d.pop("created_at")

        updated_at = d.pop("updated_at")

        get_workflows_response_200_items_item = cls(
            id=id,
            name=name,
            description=description,
            status=status,
            trigger_type=trigger_type,
            last_run_at=last_run_at,
            next_run_at=next_run_at,
            created_at=created_at,
            updated_at=updated_at,
        )

        return get_workflows_response_200_items_item

