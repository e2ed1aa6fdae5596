from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="PostWebhooksWebhookIdTestResponse200")



@_attrs_define
class PostWebhooksWebhookIdTestResponse200:
    """ 
        Attributes:
            success (bool):
            delivery_id (str):
            event_id (str):
            response_status (int | None):
            response_time_ms (int):
            error (None | str):
     """

    success: bool
    delivery_id: str
    event_id: str
    response_status: int | None
    response_time_ms: int
    error: None | str





    def to_dict(self) -> dict[str, Any]:
        success = self.success

        delivery_id = self.delivery_id

        event_id = self.event_id

        response_status: int | None
        response_status = self.response_status

        response_time_ms = self.response_time_ms

        error: None | str
        error = self.error


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "success": success,
            "delivery_id": delivery_id,
            "event_id": event_id,
            "response_status": response_status,
            "response_time_ms": response_time_ms,
            "error": error,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        success = d.pop("success")

        delivery_id = d.pop("delivery_id")

        event_id = d.pop("event_id")

        def _parse_response_status(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        response_status = _parse_response_status(d.pop("response_status"))


        response_time_ms = d.pop("response_time_ms")

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))


        post_webhooks_webhook_id_test_response_200 = cls(
            success=success,
            delivery_id=delivery_id,
            event_id=event_id,
            response_status=response_status,
            response_time_ms=response_time_ms,
            error=error,
        )

        return post_webhooks_webhook_id_test_response_200

