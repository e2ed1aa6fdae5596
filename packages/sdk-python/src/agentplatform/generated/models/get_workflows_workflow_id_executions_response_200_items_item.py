from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.get_workflows_workflow_id_executions_response_200_items_item_status import GetWorkflowsWorkflowIdExecutionsResponse200ItemsItemStatus
from ..models.get_workflows_workflow_id_executions_response_200_items_item_trigger import GetWorkflowsWorkflowIdExecutionsResponse200ItemsItemTrigger
from ..types import UNSET, Unset






T = TypeVar("T", bound="GetWorkflowsWorkflowIdExecutionsResponse200ItemsItem")



@_attrs_define
class GetWorkflowsWorkflowIdExecutionsResponse200ItemsItem:
    """ 
        Attributes:
            execution_id (str):
            status (GetWorkflowsWorkflowIdExecutionsResponse200ItemsItemStatus):
            trigger (GetWorkflowsWorkflowIdExecutionsResponse200ItemsItemTrigger):
            started_at (str):
            workflow_version (int): the workflow version whose graph the execution runs
            completed_at (str | Unset):
            duration_ms (int | Unset):
            error (str | Unset):
            parent_execution_id (str | Unset): set on a run started by a workflow or foreach node: the execution that
                started it
            retry_of (str | Unset): the failed or cancelled execution this one retries
     """

    execution_id: str
    status: GetWorkflowsWorkflowIdExecutionsResponse200ItemsItemStatus
    trigger: GetWorkflowsWorkflowIdExecutionsResponse200ItemsItemTrigger
    started_at: str
    workflow_version: int
    completed_at: str | Unset = UNSET
    duration_ms: int | Unset = UNSET
    error: str | Unset = UNSET
    parent_execution_id: str | Unset = UNSET
    retry_of: str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        execution_id = self.execution_id

        status = self.status.value

        trigger = self.trigger.value

        started_at = self.started_at

        workflow_version = self.workflow_version

        completed_at = self.completed_at

        duration_ms = self.duration_ms

        error = self.error

        parent_execution_id = self.parent_execution_id

        retry_of = self.retry_of


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "execution_id": execution_id,
            "status": status,
            "trigger": trigger,
            "started_at": started_at,
            "workflow_version": workflow_version,
        })
        if completed_at is not UNSET:
            field_dict["completed_at"] = completed_at
        if duration_ms is not UNSET:
            field_dict["duration_ms"] = duration_ms
        if error is not UNSET:
            field_dict["error"] = error
        if parent_execution_id is not UNSET:
            field_dict["parent_execution_id"] = parent_execution_id
        if retry_of is not UNSET:
            field_dict["retry_of"] = retry_of

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        execution_id = d.pop("execution_id")

        status = GetWorkflowsWorkflowIdExecutionsResponse200ItemsItemStatus(d.pop("status"))




        trigger = GetWorkflowsWorkflowIdExecutionsResponse200ItemsItemTrigger(d.pop("trigger"))




        started_at = d.pop("started_at")

        workflow_version = d.pop("workflow_version")

        completed_at = d.pop("completed_at", UNSET)

        duration_ms = d.pop("duration_ms", UNSET)

        error = d.pop("error", UNSET)

        parent_execution_id = d.pop("parent_execution_id", UNSET)

        retry_of = d.pop("retry_of", UNSET)

        get_workflows_workflow_id_executions_response_200_items_item = cls(
            execution_id=execution_id,
            status=status,
            trigger=trigger,
            started_at=started_at,
            workflow_version=workflow_version,
            completed_at=completed_at,
            duration_ms=duration_ms,
            error=error,
            parent_execution_id=parent_execution_id,
            retry_of=retry_of,
        )

        return get_workflows_workflow_id_executions_response_200_items_item

