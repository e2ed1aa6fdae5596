from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.get_webhooks_webhook_id_deliveries_response_200_items_item_event_type import GetWebhooksWebhookIdDeliveriesResponse200ItemsItemEventType
from ..models.get_webhooks_webhook_id_deliveries_response_200_items_item_status import GetWebhooksWebhookIdDeliveriesResponse200ItemsItemStatus
from typing import cast






T = TypeVar("T", bound="GetWebhooksWebhookIdDeliveriesResponse200ItemsItem")



@_attrs_define
class GetWebhooksWebhookIdDeliveriesResponse200ItemsItem:
    """ 
        Attributes:
            id (str):
            webhook_id (str):
            event_id (str):
            event_type (GetWebhooksWebhookIdDeliveriesResponse200ItemsItemEventType):
            status (GetWebhooksWebhookIdDeliveriesResponse200ItemsItemStatus):
            response_status (int | None):
            response_time_ms (int | None):
            attempts (int):
            delivered_at (None | str):
            created_at (str):
            next_attempt_at (None | str):
            last_error (None | str):
            test (bool):
     """

    id: str
    webhook_id: str
    event_id: str
    event_type: GetWebhooksWebhookIdDeliveriesResponse200ItemsItemEventType
    status: GetWebhooksWebhookIdDeliveriesResponse200ItemsItemStatus
    response_status: int | None
    response_time_ms: int | None
    attempts: int
    delivered_at: None | str
    created_at: str
    next_attempt_at: None | str
    last_error: None | str
    test: bool





    def to_dict(self) -> dict[str, Any]:
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
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        webhook_id = d.pop("webhook_id")

        event_id = d.pop("event_id")

        event_type = GetWebhooksWebhookIdDeliveriesResponse200ItemsItemEventType(d.pop("event_type"))




        status = GetWebhooksWebhookIdDeliveriesResponse200ItemsItemStatus(d.pop("status"))




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

        get_webhooks_webhook_id_deliveries_response_200_items_item = cls(
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
        )

        return get_webhooks_webhook_id_deliveries_response_200_items_item

