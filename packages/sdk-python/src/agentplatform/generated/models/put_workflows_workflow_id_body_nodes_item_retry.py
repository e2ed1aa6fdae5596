from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="PutWorkflowsWorkflowIdBodyNodesItemRetry")



@_attrs_define
class PutWorkflowsWorkflowIdBodyNodesItemRetry:
    """ 
        Attributes:
            max_attempts (int):
            backoff_ms (int | Unset):  Default: 1000.
     """

    max_attempts: int
    backoff_ms: int | Unset = 1000
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        max_attempts = self.max_attempts

        backoff_ms = self.backoff_ms


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "max_attempts": max_attempts,
        })
        if backoff_ms is not UNSET:
            field_dict["backoff_ms"] = backoff_ms

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        max_attempts = d.pop("max_attempts")

        backoff_ms = d.pop("backoff_ms", UNSET)

        put_workflows_workflow_id_body_nodes_item_retry = cls(
            max_attempts=max_attempts,
            backoff_ms=backoff_ms,
        )


        put_workflows_workflow_id_body_nodes_item_retry.additional_properties = d
        return put_workflows_workflow_id_body_nodes_item_retry

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
