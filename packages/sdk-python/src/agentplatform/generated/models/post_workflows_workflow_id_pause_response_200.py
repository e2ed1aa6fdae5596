from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="PostWorkflowsWorkflowIdPauseResponse200")



@_attrs_define
class PostWorkflowsWorkflowIdPauseResponse200:
    """ 
        Attributes:
            id (str):
            status (str):
            updated_at (str):
     """

    id: str
    status: str
    updated_at: str





    def to_dict(self) -> dict[str, Any]:
        id = self.id

        status = self.status

        updated_at = self.updated_at


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "status": status,
            "updated_at": updated_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        status = d.pop("status")

        updated_at = d.pop("updated_at")

        post_workflows_workflow_id_pause_response_200 = cls(
            id=id,
            status=status,
            updated_at=updated_at,
        )

        return post_workflows_workflow_id_pause_response_200

