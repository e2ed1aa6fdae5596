from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.get_webhooks_webhook_id_deliveries_delivery_id_response_200_attempt_log_item_response_headers import GetWebhooksWebhookIdDeliveriesDeliveryIdResponse200AttemptLogItemResponseHeaders





T = TypeVar("T", bound="GetWebhooksWebhookIdDeliveriesDeliveryIdResponse200AttemptLogItem")



@_attrs_define
class GetWebhooksWebhookIdDeliveriesDeliveryIdResponse200AttemptLogItem:
    """ 
        Attributes:
            number (int):
            attempted_at (str):
            duration_ms (int):
            response_status (int | None):
            response_headers (GetWebhooksWebhookIdDeliveriesDeliveryIdResponse200AttemptLogItemResponseHeaders):
            response_body (None | str): The first 4 KiB
            error (None | str):
            success (bool):
     """

    number: int
    attempted_at: str
    duration_ms: int
    response_status: int | None
    response_headers: GetWebhooksWebhookIdDeliveriesDeliveryIdResponse200AttemptLogItemResponseHeaders
    response_body: None | str
    error: None | str
    success: bool





    def to_dict(self) -> dict[str, Any]:
        from ..models.get_webhooks_webhook_id_deliveries_delivery_id_response_200_attempt_log_item_response_headers import GetWebhooksWebhookIdDeliveriesDeliveryIdResponse200AttemptLogItemResponseHeaders # noqa: PLC0415
        number = self.number

        attempted_at = self.attempted_at

        duration_ms = self.duration_ms

        response_status: int | None
        response_status = self.response_status

        response_headers = self.response_headers.to_dict()

        response_body: None | str
        response_body = self.response_body

        error: None | str
        error = self.error

        success = self.success


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "number": number,
            "attempted_at": attempted_at,
            "duration_ms": duration_ms,
            "response_status": response_status,
            "response_headers": response_headers,
            "response_body": response_body,
            "error": error,
            "success": success,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.get_webhooks_webhook_id_deliveries_delivery_id_response_200_attempt_log_item_response_headers import GetWebhooksWebhookIdDeliveriesDeliveryIdResponse200AttemptLogItemResponseHeaders # noqa: PLC0415
        d = dict(src_dict)
        number = d.pop("number")

        attempted_at = d.pop("attempted_at")

        duration_ms = d.pop("duration_ms")

        def _parse_response_status(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        response_status = _parse_response_status(d.pop("response_status"))


        response_headers = GetWebhooksWebhookIdDeliveriesDeliveryIdResponse200AttemptLogItemResponseHeaders.from_dict(d.pop("response_headers"))




        def _parse_response_body(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        response_body = _parse_response_body(d.pop("response_body"))


        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))


        success = d.pop("success")

        get_webhooks_webhook_id_deliveries_delivery_id_response_200_attempt_log_item = cls(
            number=number,
            attempted_at=attempted_at,
            duration_ms=duration_ms,
            response_status=response_status,
            response_headers=response_headers,
            response_body=response_body,
            error=error,
            success=success,
        )

        return get_webhooks_webhook_id_deliveries_delivery_id_response_200_attempt_log_item

