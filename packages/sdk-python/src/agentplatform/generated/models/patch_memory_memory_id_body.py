from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.patch_memory_memory_id_body_memory_type import PatchMemoryMemoryIdBodyMemoryType
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.patch_memory_memory_id_body_metadata import PatchMemoryMemoryIdBodyMetadata





T = TypeVar("T", bound="PatchMemoryMemoryIdBody")



@_attrs_define
class PatchMemoryMemoryIdBody:
    """ 
        Attributes:
            content (str | Unset):
            memory_type (PatchMemoryMemoryIdBodyMemoryType | Unset):
            metadata (PatchMemoryMemoryIdBodyMetadata | Unset): Replaces the item’s metadata
     """

    content: str | Unset = UNSET
    memory_type: PatchMemoryMemoryIdBodyMemoryType | Unset = UNSET
    metadata: PatchMemoryMemoryIdBodyMetadata | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.patch_memory_memory_id_body_metadata import PatchMemoryMemoryIdBodyMetadata # noqa: PLC0415
        content = self.content

        memory_type: str | Unset = UNSET
        if not isinstance(self.memory_type, Unset):
            memory_type = self.memory_type.value


        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if content is not UNSET:
            field_dict["content"] = content
        if memory_type is not UNSET:
            field_dict["memory_type"] = memory_type
        if metadata is not UNSET:
            field_dict["metadata"] = metadata

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.patch_memory_memory_id_body_metadata import PatchMemoryMemoryIdBodyMetadata # noqa: PLC0415
        d = dict(src_dict)
        content = d.pop("content", UNSET)

        _memory_type = d.pop("memory_type", UNSET)
        memory_type: PatchMemoryMemoryIdBodyMemoryType | Unset
        if isinstance(_memory_type,  Unset):
            memory_type = UNSET
        else:
            memory_type = PatchMemoryMemoryIdBodyMemoryType(_memory_type)




        _metadata = d.pop("metadata", UNSET)
        metadata: PatchMemoryMemoryIdBodyMetadata | Unset
        if isinstance(_metadata,  Unset):
            metadata = UNSET
        else:
            metadata = PatchMemoryMemoryIdBodyMetadata.from_dict(_metadata)




        patch_memory_memory_id_body = cls(
            content=content,
            memory_type=memory_type,
            metadata=metadata,
        )


        patch_memory_memory_id_body.additional_properties = d
        return patch_memory_memory_id_body

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
