from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="DeleteAuthRefreshResponse200")



@_attrs_define
class DeleteAuthRefreshResponse200:
    """ 
        Attributes:
            success (bool):
            message (str):
     """

    success: bool
    message: str





    def to_dict(self) -> dict[str, Any]:
        success = self.success

        message = self.message


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "success": success,
            "message": message,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        success = d.pop("success")

        message = d.pop("message")

        delete_auth_refresh_response_200 = cls(
            success=success,
            message=message,
        )

        return delete_auth_refresh_response_200

