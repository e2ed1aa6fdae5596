from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="GetAuthMeResponse200Type0TenantsItem")



@_attrs_define
class GetAuthMeResponse200Type0TenantsItem:
    """ 
        Attributes:
            id (str):
            name (str):
            role (str):
     """

    id: str
    name: str
    role: str





    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        role = self.role


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "name": name,
            "role": role,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        role = d.pop("role")

        get_auth_me_response_200_type_0_tenants_item = cls(
            id=id,
            name=name,
            role=role,
        )

        return get_auth_me_response_200_type_0_tenants_item

