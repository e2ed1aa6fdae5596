from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="PostWebhooksWebhookIdRecoverResponse200")



@_attrs_define
class PostWebhooksWebhookIdRecoverResponse200:
    """ 
        Attributes:
            redelivered (int): Failed deliveries queued again
            missed (int): Events that got no delivery (webhook failed or disabled), now queued
     """

    redelivered: int
    missed: int





    def to_dict(self) -> dict[str, Any]:
        redelivered = self.redelivered

        missed = self.missed


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "redelivered": redelivered,
            "missed": missed,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        redelivered = d.pop("redelivered")

        missed = d.pop("missed")

        post_webhooks_webhook_id_recover_response_200 = cls(
            redelivered=redelivered,
            missed=missed,
        )

        return post_webhooks_webhook_id_recover_response_200

