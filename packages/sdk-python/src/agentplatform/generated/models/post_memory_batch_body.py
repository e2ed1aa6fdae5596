from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.post_memory_batch_body_items_item import PostMemoryBatchBodyItemsItem





T = TypeVar("T", bound="PostMemoryBatchBody")



@_attrs_define
class PostMemoryBatchBody:
    """ 
        Attributes:
            agent_id (str):
            items (list[PostMemoryBatchBodyItemsItem]): 1 to 100 items, stored all or none; each as the body of POST /memory
                without agent_id
     """

    agent_id: str
    items: list[PostMemoryBatchBodyItemsItem]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.post_memory_batch_body_items_item import PostMemoryBatchBodyItemsItem # noqa: PLC0415
        agent_id = self.agent_id

        items = []
        for items_item_data in self.items:
            items_item = items_item_data.to_dict()
            items.append(items_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "agent_id": agent_id,
            "items": items,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.post_memory_batch_body_items_item import PostMemoryBatchBodyItemsItem # noqa: PLC0415
        d = dict(src_dict)
        agent_id = d.pop("agent_id")

        items = []
        _items = d.pop("items")
        for items_item_data in (_items):
            items_item = PostMemoryBatchBodyItemsItem.from_dict(items_item_data)



            items.append(items_item)


        post_memory_batch_body = cls(
            agent_id=agent_id,
            items=items,
        )


        post_memory_batch_body.additional_properties = d
        return post_memory_batch_body

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
