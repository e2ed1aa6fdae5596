from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="PatchMemoryMemoryIdResponse200Embedding")



@_attrs_define
class PatchMemoryMemoryIdResponse200Embedding:
    """ 
        Attributes:
            provider (str):
            dimension (int):
     """

    provider: str
    dimension: int





    def to_dict(self) -> dict[str, Any]:
        provider = self.provider

        dimension = self.dimension


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "provider": provider,
            "dimension": dimension,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        provider = d.pop("provider")

        dimension = d.pop("dimension")

        patch_memory_memory_id_response_200_embedding = cls(
            provider=provider,
            dimension=dimension,
        )

        return patch_memory_memory_id_response_200_embedding

