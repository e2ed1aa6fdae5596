from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.post_memory_body_memory_type import PostMemoryBodyMemoryType
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.post_memory_body_metadata import PostMemoryBodyMetadata





T = TypeVar("T", bound="PostMemoryBody")



@_attrs_define
class PostMemoryBody:
    """ 
        Attributes:
            agent_id (str):
            content (str):
            memory_type (PostMemoryBodyMemoryType | Unset): Default: semantic; must be enabled in the agent’s memory_types
            metadata (PostMemoryBodyMetadata | Unset): Free-form JSON object (e.g. source, category)
     """

    agent_id: str
    content: str
    memory_type: PostMemoryBodyMemoryType | Unset = UNSET
    metadata: PostMemoryBodyMetadata | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.post_memory_body_metadata import PostMemoryBodyMetadata # noqa: PLC0415
        agent_id = self.agent_id

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
            "agent_id": agent_id,
            "content": content,
        })
        if memory_type is not UNSET:
            field_dict["memory_type"] = memory_type
        if metadata is not UNSET:
            field_dict["metadata"] = metadata

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.post_memory_body_metadata import PostMemoryBodyMetadata # noqa: PLC0415
        d = dict(src_dict)
        agent_id = d.pop("agent_id")

        content = d.pop("content")

        _memory_type = d.pop("memory_type", UNSET)
        memory_type: PostMemoryBodyMemoryType | Unset
        if isinstance(_memory_type,  Unset):
            memory_type = UNSET
        else:
            memory_type = PostMemoryBodyMemoryType(_memory_type)




        _metadata = d.pop("metadata", UNSET)
        metadata: PostMemoryBodyMetadata | Unset
        if isinstance(_metadata,  Unset):
            metadata = UNSET
        else:
            metadata = PostMemoryBodyMetadata.from_dict(_metadata)




        post_memory_body = cls(
            agent_id=agent_id,
            content=content,
            memory_type=memory_type,
            metadata=metadata,
        )


        post_memory_body.additional_properties = d
        return post_memory_body

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
