from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.post_workflows_workflow_id_execute_response_200_node_executions_item_status import PostWorkflowsWorkflowIdExecuteResponse200NodeExecutionsItemStatus
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.post_workflows_workflow_id_execute_response_200_node_executions_item_output import PostWorkflowsWorkflowIdExecuteResponse200NodeExecutionsItemOutput





T = TypeVar("T", bound="PostWorkflowsWorkflowIdExecuteResponse200NodeExecutionsItem")



@_attrs_define
class PostWorkflowsWorkflowIdExecuteResponse200NodeExecutionsItem:
    """ 
        Attributes:
            node_id (str):
            status (PostWorkflowsWorkflowIdExecuteResponse200NodeExecutionsItemStatus):
            duration_ms (int):
            attempts (int):
            started_at (str | Unset):
            output (PostWorkflowsWorkflowIdExecuteResponse200NodeExecutionsItemOutput | Unset):
            error (str | Unset):
     """

    node_id: str
    status: PostWorkflowsWorkflowIdExecuteResponse200NodeExecutionsItemStatus
    duration_ms: int
    attempts: int
    started_at: str | Unset = UNSET
    output: PostWorkflowsWorkflowIdExecuteResponse200NodeExecutionsItemOutput | Unset = UNSET
    error: str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.post_workflows_workflow_id_execute_response_200_node_executions_item_output import PostWorkflowsWorkflowIdExecuteResponse200NodeExecutionsItemOutput # noqa: PLC0415
        node_id = self.node_id

        status = self.status.value

        duration_ms = self.duration_ms

        attempts = self.attempts

        started_at = self.started_at

        output: dict[str, Any] | Unset = UNSET
        if not isinstance(self.output, Unset):
            output = self.output.to_dict()

        error = self.error


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "node_id": node_id,
            "status": status,
            "duration_ms": duration_ms,
            "attempts": attempts,
        })
        if started_at is not UNSET:
            field_dict["started_at"] = started_at
        if output is not UNSET:
            field_dict["output"] = output
        if error is not UNSET:
            field_dict["error"] = error

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.post_workflows_workflow_id_execute_response_200_node_executions_item_output import PostWorkflowsWorkflowIdExecuteResponse200NodeExecutionsItemOutput # noqa: PLC0415
        d = dict(src_dict)
        node_id = d.pop("node_id")

        status = PostWorkflowsWorkflowIdExecuteResponse200NodeExecutionsItemStatus(d.pop("status"))




        duration_ms = d.pop("duration_ms")

        attempts = d.pop("attempts")

        started_at = d.pop("started_at", UNSET)

        _output = d.pop("output", UNSET)
        output: PostWorkflowsWorkflowIdExecuteResponse200NodeExecutionsItemOutput | Unset
        if isinstance(_output,  Unset):
            output = UNSET
        else:
            output = PostWorkflowsWorkflowIdExecuteResponse200NodeExecutionsItemOutput.from_dict(_output)




        error = d.pop("error", UNSET)

        post_workflows_workflow_id_execute_response_200_node_executions_item = cls(
            node_id=node_id,
            status=status,
            duration_ms=duration_ms,
            attempts=attempts,
            started_at=started_at,
            output=output,
            error=error,
        )

        return post_workflows_workflow_id_execute_response_200_node_executions_item

