from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import Literal, cast






T = TypeVar("T", bound="PostAuthLoginResponse200")



@_attrs_define
class PostAuthLoginResponse200:
    """ 
        Attributes:
            access_token (str):
            token_type (Literal['bearer']):
            expires_in (int): Seconds
            refresh_token (str | Unset): Absent when the refresh token was set as a cookie (refresh_cookie, or a refresh by
                the cookie)
     """

    access_token: str
    token_type: Literal['bearer']
    expires_in: int
    refresh_token: str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        access_token = self.access_token

        token_type = self.token_type

        expires_in = self.expires_in

        refresh_token = self.refresh_token


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "access_token": access_token,
            "token_type": token_type,
            "expires_in": expires_in,
        })
        if refresh_token is not UNSET:
            field_dict["refresh_token"] = refresh_token

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        access_token = d.pop("access_token")

        token_type = cast(Literal['bearer'] , d.pop("token_type"))
        if token_type != 'bearer':
            raise ValueError(f"token_type must match const 'bearer', got '{token_type}'")

        expires_in = d.pop("expires_in")

        refresh_token = d.pop("refresh_token", UNSET)

        post_auth_login_response_200 = cls(
            access_token=access_token,
            token_type=token_type,
            expires_in=expires_in,
            refresh_token=refresh_token,
        )

        return post_auth_login_response_200

