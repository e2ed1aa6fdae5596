from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="PostWebhooksWebhookIdRotateSecretResponse200")



@_attrs_define
class PostWebhooksWebhookIdRotateSecretResponse200:
    """ 
        Attributes:
            id (str):
            signing_secret (str):
            previous_secret_expires_at (str):
     """

    id: str
    signing_secret: str
    previous_secret_expires_at: str





    def to_dict(self) -> dict[str, Any]:
        id = self.id

        signing_secret = self.signing_secret

        previous_secret_expires_at = self.previous_secret_expires_at


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "signing_secret": signing_secret,
            "previous_secret_expires_at": previous_secret_expires_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        signing_secret = d.pop("signing_secret")

        previous_secret_expires_at = d.pop("previous_secret_expires_at")

        post_webhooks_webhook_id_rotate_secret_response_200 = cls(
            id=id,
            signing_secret=signing_secret,
            previous_secret_expires_at=previous_secret_expires_at,
        )

        return post_webhooks_webhook_id_rotate_secret_response_200

