from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from typing import Literal, cast






T = TypeVar("T", bound="GetAuthMeResponse200Type1")



@_attrs_define
class GetAuthMeResponse200Type1:
    """ With an API key: the key itself

        Attributes:
            type_ (Literal['api_key']):
            id (str): The key id (key_...)
            name (str):
            key_prefix (str):
            scopes (list[str]): The effective scopes: the key's scopes its creator's role still grants
            tenant_id (str):
            expires_at (None | str):
     """

    type_: Literal['api_key']
    id: str
    name: str
    key_prefix: str
    scopes: list[str]
    tenant_id: str
    expires_at: None | str





    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        id = self.id

        name = self.name

        key_prefix = self.key_prefix

        scopes = self.scopes



        tenant_id = self.tenant_id

        expires_at: None | str
        expires_at = self.expires_at


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "type": type_,
            "id": id,
            "name": name,
            "key_prefix": key_prefix,
            "scopes": scopes,
            "tenant_id": tenant_id,
            "expires_at": expires_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = cast(Literal['api_key'] , d.pop("type"))
        if type_ != 'api_key':
            raise ValueError(f"type must match const 'api_key', got '{type_}'")

        id = d.pop("id")

        name = d.pop("name")

        key_prefix = d.pop("key_prefix")

        scopes = cast(list[str], d.pop("scopes"))


        tenant_id = d.pop("tenant_id")

        def _parse_expires_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        expires_at = _parse_expires_at(d.pop("expires_at"))


        get_auth_me_response_200_type_1 = cls(
            type_=type_,
            id=id,
            name=name,
            key_prefix=key_prefix,
            scopes=scopes,
            tenant_id=tenant_id,
            expires_at=expires_at,
        )

        return get_auth_me_response_200_type_1

