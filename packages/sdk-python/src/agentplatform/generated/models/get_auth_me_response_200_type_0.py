from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.get_auth_me_response_200_type_0_tenants_item import GetAuthMeResponse200Type0TenantsItem





T = TypeVar("T", bound="GetAuthMeResponse200Type0")



@_attrs_define
class GetAuthMeResponse200Type0:
    """ With an access token: the user and their tenants

        Attributes:
            id (str):
            email (str):
            full_name (str):
            is_active (bool):
            created_at (str):
            tenants (list[GetAuthMeResponse200Type0TenantsItem]):
     """

    id: str
    email: str
    full_name: str
    is_active: bool
    created_at: str
    tenants: list[GetAuthMeResponse200Type0TenantsItem]





    def to_dict(self) -> dict[str, Any]:
        from ..models.get_auth_me_response_200_type_0_tenants_item import GetAuthMeResponse200Type0TenantsItem # noqa: PLC0415
        id = self.id

        email = self.email

        full_name = self.full_name

        is_active = self.is_active

        created_at = self.created_at

        tenants = []
        for tenants_item_data in self.tenants:
            tenants_item = tenants_item_data.to_dict()
            tenants.append(tenants_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "email": email,
            "full_name": full_name,
            "is_active": is_active,
            "created_at": created_at,
            "tenants": tenants,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.get_auth_me_response_200_type_0_tenants_item import GetAuthMeResponse200Type0TenantsItem # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        email = d.pop("email")

        full_name = d.pop("full_name")

        is_active = d.pop("is_active")

        created_at = d.pop("created_at")

        tenants = []
        _tenants = d.pop("tenants")
        for tenants_item_data in (_tenants):
            tenants_item = GetAuthMeResponse200Type0TenantsItem.from_dict(tenants_item_data)



            tenants.append(tenants_item)


        get_auth_me_response_200_type_0 = cls(
            id=id,
            email=email,
            full_name=full_name,
            is_active=is_active,
            created_at=created_at,
            tenants=tenants,
        )

        return get_auth_me_response_200_type_0

