from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="PostAuthApiKeysResponse201")



@_attrs_define
class PostAuthApiKeysResponse201:
    """ 
        Attributes:
            id (str):
            name (str):
            key (str): The full secret; shown only in this response
            key_prefix (str):
            scopes (list[str]):
            created_at (str):
            expires_at (None | str):
     """

    id: str
    name: str
    key: str
    key_prefix: str
    scopes: list[str]
    created_at: str
    expires_at: None | str





    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        key = self.key

        key_prefix = self.key_prefix

        scopes = self.scopes



        created_at = self.created_at

        expires_at: None | str
        expires_at = self.expires_at


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "name": name,
            "key": key,
            "key_prefix": key_prefix,
            "scopes": scopes,
            "created_at": created_at,
            "expires_at": expires_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        key = d.pop("key")

        key_prefix = d.pop("key_prefix")

        scopes = cast(list[str], d.pop("scopes"))


        created_at = d.pop("created_at")

        def _parse_expires_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        expires_at = _parse_expires_at(d.pop("expires_at"))


        post_auth_api_keys_response_201 = cls(
            id=id,
            name=name,
            key=key,
            key_prefix=key_prefix,
            scopes=scopes,
            created_at=created_at,
            expires_at=expires_at,
        )

        return post_auth_api_keys_response_201

