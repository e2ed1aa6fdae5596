from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.post_workflows_workflow_id_executions_execution_id_cancel_response_200_status import PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200Status
from ..models.post_workflows_workflow_id_executions_execution_id_cancel_response_200_trigger import PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200Trigger
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.post_workflows_workflow_id_executions_execution_id_cancel_response_200_input import PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200Input
  from ..models.post_workflows_workflow_id_executions_execution_id_cancel_response_200_node_executions_item import PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200NodeExecutionsItem
  from ..models.post_workflows_workflow_id_executions_execution_id_cancel_response_200_output import PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200Output





T = TypeVar("T", bound="PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200")



@_attrs_define
class PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200:
    """ 
        Attributes:
            execution_id (str):
            workflow_id (str):
            status (PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200Status):
            trigger (PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200Trigger):
            started_at (str):
            node_executions (list[PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200NodeExecutionsItem]):
            input_ (PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200Input):
            workflow_version (int): the workflow version whose graph the execution runs
            completed_at (str | Unset):
            duration_ms (int | Unset):
            output (PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200Output | Unset):
            error (str | Unset):
            failed_node_id (str | Unset):
            parent_execution_id (str | Unset): set on a run started by a workflow or foreach node: the execution that
                started it
            parent_node_id (str | Unset): the node of the parent execution that started this run
            retry_of (str | Unset): the failed or cancelled execution this one retries
     """

    execution_id: str
    workflow_id: str
    status: PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200Status
    trigger: PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200Trigger
    started_at: str
    node_executions: list[PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200NodeExecutionsItem]
    input_: PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200Input
    workflow_version: int
    completed_at: str | Unset = UNSET
    duration_ms: int | Unset = UNSET
    output: PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200Output | Unset = UNSET
    error: str | Unset = UNSET
    failed_node_id: str | Unset = UNSET
    parent_execution_id: str | Unset = UNSET
    parent_node_id: str | Unset = UNSET
    retry_of: str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.post_workflows_workflow_id_executions_execution_id_cancel_response_200_input import PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200Input # noqa: PLC0415
        from ..models.post_workflows_workflow_id_executions_execution_id_cancel_response_200_node_executions_item import PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200NodeExecutionsItem # noqa: PLC0415
        from ..models.post_workflows_workflow_id_executions_execution_id_cancel_response_200_output import PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200Output # noqa: PLC0415
        execution_id = self.execution_id

        workflow_id = self.workflow_id

        status = self.status.value

        trigger = self.trigger.value

        started_at = self.started_at

        node_executions = []
        for node_executions_item_data in self.node_executions:
            node_executions_item = node_executions_item_data.to_dict()
            node_executions.append(node_executions_item)



        input_ = self.input_.to_dict()

        workflow_version = self.workflow_version

        completed_at = self.completed_at

        duration_ms = self.duration_ms

        output: dict[str, Any] | Unset = UNSET
        if not isinstance(self.output, Unset):
            output = self.output.to_dict()

        error = self.error

        failed_node_id = self.failed_node_id

        parent_execution_id = self.parent_execution_id

        parent_node_id = self.parent_node_id

        retry_of = self.retry_of


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "execution_id": execution_id,
            "workflow_id": workflow_id,
            "status": status,
            "trigger": trigger,
            "started_at": started_at,
            "node_executions": node_executions,
            "input": input_,
            "workflow_version": workflow_version,
        })
        if completed_at is not UNSET:
            field_dict["completed_at"] = completed_at
        if duration_ms is not UNSET:
            field_dict["duration_ms"] = duration_ms
        if output is not UNSET:
            field_dict["output"] = output
        if error is not UNSET:
            field_dict["error"] = error
        if failed_node_id is not UNSET:
            field_dict["failed_node_id"] = failed_node_id
        if parent_execution_id is not UNSET:
            field_dict["parent_execution_id"] = parent_execution_id
        if parent_node_id is not UNSET:
            field_dict["parent_node_id"] = parent_node_id
        if retry_of is not UNSET:
            field_dict["retry_of"] = retry_of

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.post_workflows_workflow_id_executions_execution_id_cancel_response_200_input import PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200Input # noqa: PLC0415
        from ..models.post_workflows_workflow_id_executions_execution_id_cancel_response_200_node_executions_item import PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200NodeExecutionsItem # noqa: PLC0415
        from ..models.post_workflows_workflow_id_executions_execution_id_cancel_response_200_output import PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200Output # noqa: PLC0415
        d = dict(src_dict)
        execution_id = d.pop("execution_id")

        workflow_id = d.pop("workflow_id")

        status = PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200Status(d.pop("status"))




        trigger = PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200Trigger(d.pop("trigger"))




        started_at = d.pop("started_at")

        node_executions = []
        _node_executions = d.pop("node_executions")
        for node_executions_item_data in (_node_executions):
            node_executions_item = PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200NodeExecutionsItem.from_dict(node_executions_item_data)



            node_executions.append(node_executions_item)


        input_ = PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200Input.from_dict(d.pop("input"))




        workflow_version = d.pop("workflow_version")

        completed_at = d.pop("completed_at", UNSET)

        duration_ms = d.pop("duration_ms", UNSET)

        _output = d.pop("output", UNSET)
        output: PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200Output | Unset
        if isinstance(_output,  Unset):
            output = UNSET
        else:
            output = PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200Output.from_dict(_output)




        error = d.pop("error", UNSET)

        failed_node_id = d.pop("failed_node_id", UNSET)

        parent_execution_id = d.pop("parent_execution_id", UNSET)

        parent_node_id = d.pop("parent_node_id", UNSET)

        retry_of = d.pop("retry_of", UNSET)

        post_workflows_workflow_id_executions_execution_id_cancel_response_200 = cls(
            execution_id=execution_id,
            workflow_id=workflow_id,
            status=status,
            trigger=trigger,
            started_at=started_at,
            node_executions=node_executions,
            input_=input_,
            workflow_version=workflow_version,
            completed_at=completed_at,
            duration_ms=duration_ms,
            output=output,
            error=error,
            failed_node_id=failed_node_id,
            parent_execution_id=parent_execution_id,
            parent_node_id=parent_node_id,
            retry_of=retry_of,
        )

        return post_workflows_workflow_id_executions_execution_id_cancel_response_200

