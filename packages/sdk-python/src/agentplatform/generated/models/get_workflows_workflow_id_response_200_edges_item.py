from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="GetWorkflowsWorkflowIdResponse200EdgesItem")



@_attrs_define
class GetWorkflowsWorkflowIdResponse200EdgesItem:
    """ 
        Attributes:
            source (str):
            target (str):
     """

    source: str
    target: str





    def to_dict(self) -> dict[str, Any]:
        source = self.source

        target = self.target


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "source": source,
            "target": target,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        source = d.pop("source")

        target = d.pop("target")

        get_workflows_workflow_id_response_200_edges_item = cls(
            source=source,
            target=target,
        )

        return get_workflows_workflow_id_response_200_edges_item

