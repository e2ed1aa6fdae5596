from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="PostWorkflowsWorkflowIdHookRotateResponse200Statistics")



@_attrs_define
class PostWorkflowsWorkflowIdHookRotateResponse200Statistics:
    """ get only

        Attributes:
            total_runs (int):
            success_rate (float):
            avg_duration (str):
     """

    total_runs: int
    success_rate: float
    avg_duration: str





    def to_dict(self) -> dict[str, Any]:
        total_runs = self.total_runs

        success_rate = self.success_rate

        avg_duration = self.avg_duration


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "total_runs": total_runs,
            "success_rate": success_rate,
            "avg_duration": avg_duration,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        total_runs = d.pop("total_runs")

        success_rate = d.pop("success_rate")

        avg_duration = d.pop("avg_duration")

        post_workflows_workflow_id_hook_rotate_response_200_statistics = cls(
            total_runs=total_runs,
            success_rate=success_rate,
            avg_duration=avg_duration,
        )

        return post_workflows_workflow_id_hook_rotate_response_200_statistics

