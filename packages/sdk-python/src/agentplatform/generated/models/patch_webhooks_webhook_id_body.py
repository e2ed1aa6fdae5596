from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.patch_webhooks_webhook_id_body_status import PatchWebhooksWebhookIdBodyStatus
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.patch_webhooks_webhook_id_body_metadata import PatchWebhooksWebhookIdBodyMetadata





T = TypeVar("T", bound="PatchWebhooksWebhookIdBody")



@_attrs_define
class PatchWebhooksWebhookIdBody:
    """ 
        Attributes:
            url (str | Unset):
            events (list[str] | Unset): Event types, dotted prefixes of them (agent.message), "*", or the alias
                workflow.completed
            metadata (PatchWebhooksWebhookIdBodyMetadata | Unset): Free-form keys, at most 8 KiB as JSON
            status (PatchWebhooksWebhookIdBodyStatus | Unset): active re-enables a failed webhook; disabled pauses it
     """

    url: str | Unset = UNSET
    events: list[str] | Unset = UNSET
    metadata: PatchWebhooksWebhookIdBodyMetadata | Unset = UNSET
    status: PatchWebhooksWebhookIdBodyStatus | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.patch_webhooks_webhook_id_body_metadata import PatchWebhooksWebhookIdBodyMetadata # noqa: PLC0415
        url = self.url

        events: list[str] | Unset = UNSET
        if not isinstance(self.events, Unset):
            events = self.events



        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status.value



        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if url is not UNSET:
            field_dict["url"] = url
        if events is not UNSET:
            field_dict["events"] = events
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if status is not UNSET:
            field_dict["status"] = status

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.patch_webhooks_webhook_id_body_metadata import PatchWebhooksWebhookIdBodyMetadata # noqa: PLC0415
        d = dict(src_dict)
        url = d.pop("url", UNSET)

        events = cast(list[str], d.pop("events", UNSET))


        _metadata = d.pop("metadata", UNSET)
        metadata: PatchWebhooksWebhookIdBodyMetadata | Unset
        if isinstance(_metadata,  Unset):
            metadata = UNSET
        else:
            metadata = PatchWebhooksWebhookIdBodyMetadata.from_dict(_metadata)




        _status = d.pop("status", UNSET)
        status: PatchWebhooksWebhookIdBodyStatus | Unset
        if isinstance(_status,  Unset):
            status = UNSET
        else:
            status = PatchWebhooksWebhookIdBodyStatus(_status)




        patch_webhooks_webhook_id_body = cls(
            url=url,
            events=events,
            metadata=metadata,
            status=status,
        )


        patch_webhooks_webhook_id_body.additional_properties = d
        return patch_webhooks_webhook_id_body

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
