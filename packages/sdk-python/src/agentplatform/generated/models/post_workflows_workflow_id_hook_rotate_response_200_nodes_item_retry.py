from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="PostWorkflowsWorkflowIdHookRotateResponse200NodesItemRetry")



@_attrs_define
class PostWorkflowsWorkflowIdHookRotateResponse200NodesItemRetry:
    """ 
        Attributes:
            max_attempts (int):
            backoff_ms (int):  Default: 1000.
     """

    max_attempts: int
    backoff_ms: int = 1000





    def to_dict(self) -> dict[str, Any]:
        max_attempts = self.max_attempts

        backoff_ms = self.backoff_ms


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "max_attempts": max_attempts,
            "backoff_ms": backoff_ms,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        max_attempts = d.pop("max_attempts")

        backoff_ms = d.pop("backoff_ms")

        post_workflows_workflow_id_hook_rotate_response_200_nodes_item_retry = cls(
            max_attempts=max_attempts,
            backoff_ms=backoff_ms,
        )

        return post_workflows_workflow_id_hook_rotate_response_200_nodes_item_retry

