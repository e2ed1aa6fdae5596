from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.error_details_item import ErrorDetailsItem





T = TypeVar("T", bound="Error")



@_attrs_define
class Error:
    """ 
        Attributes:
            error (str):
            message (str):
            details (list[ErrorDetailsItem] | Unset):
            retry_after (int | Unset): Seconds to wait before retrying (429 and 503)
     """

    error: str
    message: str
    details: list[ErrorDetailsItem] | Unset = UNSET
    retry_after: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.error_details_item import ErrorDetailsItem # noqa: PLC0415
        error = self.error

        message = self.message

        details: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.details, Unset):
            details = []
            for details_item_data in self.details:
                details_item = details_item_data.to_dict()
                details.append(details_item)



        retry_after = self.retry_after


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "error": error,
            "message": message,
        })
        if details is not UNSET:
            field_dict["details"] = details
        if retry_after is not UNSET:
            field_dict["retry_after"] = retry_after

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.error_details_item import ErrorDetailsItem # noqa: PLC0415
        d = dict(src_dict)
        error = d.pop("error")

        message = d.pop("message")

        _details = d.pop("details", UNSET)
        details: list[ErrorDetailsItem] | Unset = UNSET
        if _details is not UNSET:
            details = []
            for details_item_data in _details:
                details_item = ErrorDetailsItem.from_dict(details_item_data)



                details.append(details_item)


        retry_after = d.pop("retry_after", UNSET)

        error = cls(
            error=error,
            message=message,
            details=details,
            retry_after=retry_after,
        )


        error.additional_properties = d
        return error

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
