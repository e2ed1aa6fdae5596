from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.get_workflows_response_200_items_item import GetWorkflowsResponse200ItemsItem





T = TypeVar("T", bound="GetWorkflowsResponse200")



@_attrs_define
class GetWorkflowsResponse200:
    """ 
        Attributes:
            items (list[GetWorkflowsResponse200ItemsItem]):
            total (int):
            page (int):
            per_page (int):
     """

    items: list[GetWorkflowsResponse200ItemsItem]
    total: int
    page: int
    per_page: int





    def to_dict(self) -> dict[str, Any]:
        from ..models.get_workflows_response_200_items_item import GetWorkflowsResponse200ItemsItem # noqa: PLC0415
        items = []
        for items_item_data in self.items:
            items_item = items_item_data.to_dict()
            items.append(items_item)



        total = self.total

        page = self.page

        per_page = self.per_page


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "items": items,
            "total": total,
            "page": page,
            "per_page": per_page,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.get_workflows_response_200_items_item import GetWorkflowsResponse200ItemsItem # noqa: PLC0415
        d = dict(src_dict)
        items = []
        _items = d.pop("items")
        for items_item_data in (_items):
            items_item = GetWorkflowsResponse200ItemsItem.from_dict(items_item_data)



            items.append(items_item)


        total = d.pop("total")

        page = d.pop("page")

        per_page = d.pop("per_page")

        get_workflows_response_200 = cls(
            items=items,
            total=total,
            page=page,
            per_page=per_page,
        )

        return get_workflows_response_200

