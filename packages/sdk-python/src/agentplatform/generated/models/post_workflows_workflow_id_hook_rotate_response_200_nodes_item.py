from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.post_workflows_workflow_id_hook_rotate_response_200_nodes_item_type import PostWorkflowsWorkflowIdHookRotateResponse200NodesItemType
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.post_workflows_workflow_id_hook_rotate_response_200_nodes_item_config import PostWorkflowsWorkflowIdHookRotateResponse200NodesItemConfig
  from ..models.post_workflows_workflow_id_hook_rotate_response_200_nodes_item_retry import PostWorkflowsWorkflowIdHookRotateResponse200NodesItemRetry





T = TypeVar("T", bound="PostWorkflowsWorkflowIdHookRotateResponse200NodesItem")



@_attrs_define
class PostWorkflowsWorkflowIdHookRotateResponse200NodesItem:
    """ 
        Attributes:
            id (str):
            type_ (PostWorkflowsWorkflowIdHookRotateResponse200NodesItemType):
            config (PostWorkflowsWorkflowIdHookRotateResponse200NodesItemConfig): depends on type (docs/workflows.md); a
                schedule node takes ScheduleNodeConfig. An integration node's header values are write-only: answers show
                "[set]", and an update that sends "[set]" keeps the stored value
            retry (PostWorkflowsWorkflowIdHookRotateResponse200NodesItemRetry | Unset):
            timeout_ms (int | Unset):
     """

    id: str
    type_: PostWorkflowsWorkflowIdHookRotateResponse200NodesItemType
    config: PostWorkflowsWorkflowIdHookRotateResponse200NodesItemConfig
    retry: PostWorkflowsWorkflowIdHookRotateResponse200NodesItemRetry | Unset = UNSET
    timeout_ms: int | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.post_workflows_workflow_id_hook_rotate_response_200_nodes_item_config import PostWorkflowsWorkflowIdHookRotateResponse200NodesItemConfig # noqa: PLC0415
        from ..models.post_workflows_workflow_id_hook_rotate_response_200_nodes_item_retry import PostWorkflowsWorkflowIdHookRotateResponse200NodesItemRetry # noqa: PLC0415
        id = self.id

        type_ = self.type_.value

        config = self.config.to_dict()

        retry: dict[str, Any] | Unset = UNSET
        if not isinstance(self.retry, Unset):
            retry = self.retry.to_dict()

        timeout_ms = self.timeout_ms


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "type": type_,
            "config": config,
        })
        if retry is not UNSET:
            field_dict["retry"] = retry
        if timeout_ms is not UNSET:
            field_dict["timeout_ms"] = timeout_ms

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.post_workflows_workflow_id_hook_rotate_response_200_nodes_item_config import PostWorkflowsWorkflowIdHookRotateResponse200NodesItemConfig # noqa: PLC0415
        from ..models.post_workflows_workflow_id_hook_rotate_response_200_nodes_item_retry import PostWorkflowsWorkflowIdHookRotateResponse200NodesItemRetry # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        type_ = PostWorkflowsWorkflowIdHookRotateResponse200NodesItemType(d.pop("type"))




        config = PostWorkflowsWorkflowIdHookRotateResponse200NodesItemConfig.from_dict(d.pop("config"))




        _retry = d.pop("retry", UNSET)
        retry: PostWorkflowsWorkflowIdHookRotateResponse200NodesItemRetry | Unset
        if isinstance(_retry,  Unset):
            retry = UNSET
        else:
            retry = PostWorkflowsWorkflowIdHookRotateResponse200NodesItemRetry.from_dict(_retry)




        timeout_ms = d.pop("timeout_ms", UNSET)

        post_workflows_workflow_id_hook_rotate_response_200_nodes_item = cls(
            id=id,
            type_=type_,
            config=config,
            retry=retry,
            timeout_ms=timeout_ms,
        )

        return post_workflows_workflow_id_hook_rotate_response_200_nodes_item

