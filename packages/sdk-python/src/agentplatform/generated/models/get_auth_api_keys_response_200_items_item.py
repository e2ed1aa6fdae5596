from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="GetAuthApiKeysResponse200ItemsItem")



@_attrs_define
class GetAuthApiKeysResponse200ItemsItem:
    """ 
        Attributes:
            id (str):
            name (str):
            key_prefix (str):
            scopes (list[str]):
            last_used_at (None | str):
            created_at (str):
            expires_at (None | str):
     """

    id: str
    name: str
    key_prefix: str
    scopes: list[str]
    last_used_at: None | str
    created_at: str
    expires_at: None | str





    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        key_prefix = self.key_prefix

        scopes = self.scopes



        last_used_at: None | str
        last_used_at = self.last_used_at

        created_at = self.created_at

        expires_at: None | str
        expires_at = self.expires_at


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "name": name,
            "key_prefix": key_prefix,
            "scopes": scopes,
            "last_used_at": last_used_at,
            "created_at": created_at,
            "expires_at": expires_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        key_prefix = d.pop("key_prefix")

        scopes = cast(list[str], d.pop("scopes"))


        def _parse_last_used_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_used_at = _parse_last_used_at(d.pop("last_used_at"))


        created_at = d.pop("created_at")

        def _parse_expires_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        expires_at = _parse_expires_at(d.pop("expires_at"))


        get_auth_api_keys_response_200_items_item = cls(
            id=id,
            name=name,
            key_prefix=key_prefix,
            scopes=scopes,
            last_used_at=last_used_at,
            created_at=created_at,
            expires_at=expires_at,
        )

        return get_auth_api_keys_response_200_items_item

