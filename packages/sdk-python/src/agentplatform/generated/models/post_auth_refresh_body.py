from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="PostAuthRefreshBody")



@_attrs_define
class PostAuthRefreshBody:
    """ 
        Attributes:
            refresh_token (str | Unset): Required unless the refresh cookie is sent; when both are, this one is used
            refresh_cookie (bool | Unset): true: set the refresh token as an HttpOnly, SameSite=Strict cookie scoped to
                /api/v1/auth/refresh and leave it out of the answer (JSON bodies only)
     """

    refresh_token: str | Unset = UNSET
    refresh_cookie: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        refresh_token = self.refresh_token

        refresh_cookie = self.refresh_cookie


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if refresh_token is not UNSET:
            field_dict["refresh_token"] = refresh_token
        if refresh_cookie is not UNSET:
            field_dict["refresh_cookie"] = refresh_cookie

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        refresh_token = d.pop("refresh_token", UNSET)

        refresh_cookie = d.pop("refresh_cookie", UNSET)

        post_auth_refresh_body = cls(
            refresh_token=refresh_token,
            refresh_cookie=refresh_cookie,
        )


        post_auth_refresh_body.additional_properties = d
        return post_auth_refresh_body

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
