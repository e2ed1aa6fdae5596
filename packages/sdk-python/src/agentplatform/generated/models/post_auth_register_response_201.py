from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="PostAuthRegisterResponse201")



@_attrs_define
class PostAuthRegisterResponse201:
    """ 
        Attributes:
            id (str):
            email (str):
            full_name (str):
            tenant_id (str):
            credits_ (int):
            created_at (str):
     """

    id: str
    email: str
    full_name: str
    tenant_id: str
    credits_: int
    created_at: str





    def to_dict(self) -> dict[str, Any]:
        id = self.id

        email = self.email

        full_name = self.full_name

        tenant_id = self.tenant_id

        credits_ = self.credits_

        created_at = self.created_at


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "email": email,
            "full_name": full_name,
            "tenant_id": tenant_id,
            "credits": credits_,
            "created_at": created_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        email = d.pop("email")

        full_name = d.pop("full_name")

        tenant_id = d.pop("tenant_id")

        credits_ = d.pop("credits")

        created_at = d.pop("created_at")

        post_auth_register_response_201 = cls(
            id=id,
            email=email,
            full_name=full_name,
            tenant_id=tenant_id,
            credits_=credits_,
            created_at=created_at,
        )

        return post_auth_register_response_201

