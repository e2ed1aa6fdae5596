from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.get_webhooks_webhook_id_deliveries_delivery_id_response_200_event_type import GetWebhooksWebhookIdDeliveriesDeliveryIdResponse200EventType
from ..models.get_webhooks_webhook_id_deliveries_delivery_id_response_200_status import GetWebhooksWebhookIdDeliveriesDeliveryIdResponse200Status
from typing import cast

if TYPE_CHECKING:
  from ..models.get_webhooks_webhook_id_deliveries_delivery_id_response_200_attempt_log_item import GetWebhooksWebhookIdDeliveriesDeliveryIdResponse200AttemptLogItem





T = TypeVar("T", bound="GetWebhooksWebhookIdDeliveriesDeliveryIdResponse200")



@_attrs_define
class GetWebhooksWebhookIdDeliveriesDeliveryIdResponse200:
    """ 
        Attributes:
            id (str):
            webhook_id (str):
            event_id (str):
            event_type (GetWebhooksWebhookIdDeliveriesDeliveryIdResponse200EventType):
            status (GetWebhooksWebhookIdDeliveriesDeliveryIdResponse200Status):
            response_status (int | None):
            response_time_ms (int | None):
            attempts (int):
            delivered_at (None | str):
            created_at (str):
            next_attempt_at (None | str):
            last_error (None | str):
            test (bool):
            attempt_log (list[GetWebhooksWebhookIdDeliveriesDeliveryIdResponse200AttemptLogItem]):
     """

    id: str
    webhook_id: str
    event_id: str
    event_type: GetWebhooksWebhookIdDeliveriesDeliveryIdResponse200EventType
    status: GetWebhooksWebhookIdDeliveriesDeliveryIdResponse200Status
    response_status: int | None
    response_time_ms: int | None
    attempts: int
    delivered_at: None | str
    created_at: str
    next_attempt_at: None | str
    last_error: None | str
    test: bool
    attempt_log: list[GetWebhooksWebhookIdDeliveriesDeliveryIdResponse200AttemptLogItem]





    def to_dict(self) -> dict[str, Any]:
        from ..models.get_webhooks_webhook_id_deliveries_delivery_id_response_200_attempt_log_item import GetWebhooksWebhookIdDeliveriesDeliveryIdResponse200AttemptLogItem # noqa: PLC0415
        id = self.id

        webhook_id = self.webhook_id

        event_id = self.event_id

        event_type = self.event_type.value

        status = self.status.value

        response_status: int | None
        response_status = self.response_status

        response_time_ms: int | None
        response_time_ms = self.response_time_ms

        attempts = self.attempts

        delivered_at: None | str
        delivered_at = self.delivered_at

        created_at = self.created_at

        next_attempt_at: None | str
        next_attempt_at = self.next_attempt_at

        last_error: None | str
        last_error = self.last_error

        test = self.test

        attempt_log = []
        for attempt_log_item_data in self.attempt_log:
            attempt_log_item = attempt_log_item_data.to_dict()
            attempt_log.append(attempt_log_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "webhook_id": webhook_id,
            "event_id": event_id,
            "event_type": event_type,
            "status": status,
            "response_status": response_status,
            "response_time_ms": response_time_ms,
            "attempts": attempts,
            "delivered_at": delivered_at,
            "created_at": created_at,
            "next_attempt_at": next_attempt_at,
            "last_error": last_error,
            "test": test,
            "attempt_log": attempt_log,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.get_webhooks_webhook_id_deliveries_delivery_id_response_200_attempt_log_item import GetWebhooksWebhookIdDeliveriesDeliveryIdResponse200AttemptLogItem # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        webhook_id = d.pop("webhook_id")

        event_id = d.pop("event_id")

        event_type = GetWebhooksWebhookIdDeliveriesDeliveryIdResponse200EventType(d.pop("event_type"))




        status = GetWebhooksWebhookIdDeliveriesDeliveryIdResponse200Status(d.pop("status"))




        def _parse_response_status(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        response_status = _parse_response_status(d.pop("response_status"))


        def _parse_response_time_ms(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        response_time_ms = _parse_response_time_ms(d.pop("response_time_ms"))


        attempts = d.pop("attempts")

        def _parse_delivered_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        delivered_at = _parse_delivered_at(d.pop("delivered_at"))


        created_at = d.pop("created_at")

        def _parse_next_attempt_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        next_attempt_at = _parse_next_attempt_at(d.pop("next_attempt_at"))


        def _parse_last_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_error = _parse_last_error(d.pop("last_error"))


        test = d.pop("test")

        attempt_log = []
        _attempt_log = d.pop("attempt_log")
        for attempt_log_item_data in (_attempt_log):
            attempt_log_item = GetWebhooksWebhookIdDeliveriesDeliveryIdResponse200AttemptLogItem.from_dict(attempt_log_item_data)



            attempt_log.append(attempt_log_item)


        get_webhooks_webhook_id_deliveries_delivery_id_response_200 = cls(
            id=id,
            webhook_id=webhook_id,
            event_id=event_id,
            event_type=event_type,
            status=status,
            response_status=response_status,
            response_time_ms=response_time_ms,
            attempts=attempts,
            delivered_at=delivered_at,
            created_at=created_at,
            next_attempt_at=next_attempt_at,
            last_error=last_error,
            test=test,
            attempt_log=attempt_log,
        )

        return get_webhooks_webhook_id_deliveries_delivery_id_response_200

