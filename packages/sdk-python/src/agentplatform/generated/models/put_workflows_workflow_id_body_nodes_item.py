from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.put_workflows_workflow_id_body_nodes_item_type import PutWorkflowsWorkflowIdBodyNodesItemType
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.put_workflows_workflow_id_body_nodes_item_config import PutWorkflowsWorkflowIdBodyNodesItemConfig
  from ..models.put_workflows_workflow_id_body_nodes_item_retry import PutWorkflowsWorkflowIdBodyNodesItemRetry





T = TypeVar("T", bound="PutWorkflowsWorkflowIdBodyNodesItem")



@_attrs_define
class PutWorkflowsWorkflowIdBodyNodesItem:
    """ 
        Attributes:
            id (str):
            type_ (PutWorkflowsWorkflowIdBodyNodesItemType):
            config (PutWorkflowsWorkflowIdBodyNodesItemConfig | Unset): depends on type (docs/workflows.md); a schedule node
                takes ScheduleNodeConfig. An integration node's header values are write-only: answers show "[set]", and an
                update that sends "[set]" keeps the stored value
            retry (PutWorkflowsWorkflowIdBodyNodesItemRetry | Unset):
            timeout_ms (int | Unset):
     """

    id: str
    type_: PutWorkflowsWorkflowIdBodyNodesItemType
    config: PutWorkflowsWorkflowIdBodyNodesItemConfig | Unset = UNSET
    retry: PutWorkflowsWorkflowIdBodyNodesItemRetry | Unset = UNSET
    timeout_ms: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.put_workflows_workflow_id_body_nodes_item_config import PutWorkflowsWorkflowIdBodyNodesItemConfig # noqa: PLC0415
        from ..models.put_workflows_workflow_id_body_nodes_item_retry import PutWorkflowsWorkflowIdBodyNodesItemRetry # noqa: PLC0415
        id = self.id

        type_ = self.type_.value

        config: dict[str, Any] | Unset = UNSET
        if not isinstance(self.config, Unset):
            config = self.config.to_dict()

        retry: dict[str, Any] | Unset = UNSET
        if not isinstance(self.retry, Unset):
            retry = self.retry.to_dict()

        timeout_ms = self.timeout_ms


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "type": type_,
        })
        if config is not UNSET:
            field_dict["config"] = config
        if retry is not UNSET:
            field_dict["retry"] = retry
        if timeout_ms is not UNSET:
            field_dict["timeout_ms"] = timeout_ms

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.put_workflows_workflow_id_body_nodes_item_config import PutWorkflowsWorkflowIdBodyNodesItemConfig # noqa: PLC0415
        from ..models.put_workflows_workflow_id_body_nodes_item_retry import PutWorkflowsWorkflowIdBodyNodesItemRetry # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        type_ = PutWorkflowsWorkflowIdBodyNodesItemType(d.pop("type"))




        _config = d.pop("config", UNSET)
        config: PutWorkflowsWorkflowIdBodyNodesItemConfig | Unset
        if isinstance(_config,  Unset):
            config = UNSET
        else:
            config = PutWorkflowsWorkflowIdBodyNodesItemConfig.from_dict(_config)




        _retry = d.pop("retry", UNSET)
        retry: PutWorkflowsWorkflowIdBodyNodesItemRetry | Unset
        if isinstance(_retry,  Unset):
            retry = UNSET
        else:
            retry = PutWorkflowsWorkflowIdBodyNodesItemRetry.from_dict(_retry)




        timeout_ms = d.pop("timeout_ms", UNSET)

        put_workflows_workflow_id_body_nodes_item = cls(
            id=id,
            type_=type_,
            config=config,
            retry=retry,
            timeout_ms=timeout_ms,
        )


        put_workflows_workflow_id_body_nodes_item.additional_properties = d
        return put_workflows_workflow_id_body_nodes_item

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
