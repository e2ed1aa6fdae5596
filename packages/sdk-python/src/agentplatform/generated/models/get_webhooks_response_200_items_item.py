from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.get_webhooks_response_200_items_item_status import GetWebhooksResponse200ItemsItemStatus
from typing import cast

if TYPE_CHECKING:
  from ..models.get_webhooks_response_200_items_item_metadata import GetWebhooksResponse200ItemsItemMetadata





T = TypeVar("T", bound="GetWebhooksResponse200ItemsItem")



@_attrs_define
class GetWebhooksResponse200ItemsItem:
    """ 
        Attributes:
            id (str):
            url (str):
            events (list[str]):
            status (GetWebhooksResponse200ItemsItemStatus):
            metadata (GetWebhooksResponse200ItemsItemMetadata): Free-form keys, at most 8 KiB as JSON
            created_at (str):
            updated_at (str):
            failed_at (None | str):
            failure_reason (None | str):
     """

    id: str
    url: str
    events: list[str]
    status: GetWebhooksResponse200ItemsItemStatus
    metadata: GetWebhooksResponse200ItemsItemMetadata
    created_at: str
    updated_at: str
    failed_at: None | str
    failure_reason: None | str





    def to_dict(self) -> dict[str, Any]:
        from ..models.get_webhooks_response_200_items_item_metadata import GetWebhooksResponse200ItemsItemMetadata # noqa: PLC0415
        id = self.id

        url = self.url

        events = self.events



        status = self.status.value

        metadata = self.metadata.to_dict()

        created_at = self.created_at

        updated_at = self.updated_at

        failed_at: None | str
        failed_at = self.failed_at

        failure_reason: None | str
        failure_reason = self.failure_reason


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "url": url,
            "events": events,
            "status": status,
            "metadata": metadata,
            "created_at": created_at,
            "updated_at": updated_at,
            "failed_at": failed_at,
            "failure_reason": failure_reason,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.get_webhooks_response_200_items_item_metadata import GetWebhooksResponse200ItemsItemMetadata # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        url = d.pop("url")

        events = cast(list[str], d.pop("events"))


        status = GetWebhooksResponse200ItemsItemStatus(d.pop("status"))




        metadata = GetWebhooksResponse200ItemsItemMetadata.from_dict(d.pop("metadata"))




        created_at = d.pop("created_at")

        updated_at = d.pop("updated_at")

        def _parse_failed_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        failed_at = _parse_failed_at(d.pop("failed_at"))


        def _parse_failure_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        failure_reason = _parse_failure_reason(d.pop("failure_reason"))


        get_webhooks_response_200_items_item = cls(
            id=id,
            url=url,
            events=events,
            status=status,
            metadata=metadata,
            created_at=created_at,
            updated_at=updated_at,
            failed_at=failed_at,
            failure_reason=failure_reason,
        )

        return get_webhooks_response_200_items_item

