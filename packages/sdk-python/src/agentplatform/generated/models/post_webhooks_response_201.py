from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.post_webhooks_response_201_status import PostWebhooksResponse201Status
from typing import cast

if TYPE_CHECKING:
  from ..models.post_webhooks_response_201_metadata import PostWebhooksResponse201Metadata





T = TypeVar("T", bound="PostWebhooksResponse201")



@_attrs_define
class PostWebhooksResponse201:
    """ 
        Attributes:
            id (str):
            url (str):
            events (list[str]):
            status (PostWebhooksResponse201Status):
            metadata (PostWebhooksResponse201Metadata): Free-form keys, at most 8 KiB as JSON
            created_at (str):
            updated_at (str):
            failed_at (None | str):
            failure_reason (None | str):
            signing_secret (str): Shown only here
     """

    id: str
    url: str
    events: list[str]
    status: PostWebhooksResponse201Status
    metadata: PostWebhooksResponse201Metadata
    created_at: str
    updated_at: str
    failed_at: None | str
    failure_reason: None | str
    signing_secret: str





    def to_dict(self) -> dict[str, Any]:
        from ..models.post_webhooks_response_201_metadata import PostWebhooksResponse201Metadata # noqa: PLC0415
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

        signing_secret = self.signing_secret


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
            "signing_secret": signing_secret,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.post_webhooks_response_201_metadata import PostWebhooksResponse201Metadata # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        url = d.pop("url")

        events = cast(list[str], d.pop("events"))


        status = PostWebhooksResponse201Status(d.pop("status"))




        metadata = PostWebhooksResponse201Metadata.from_dict(d.pop("metadata"))




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


        signing_secret = d.pop("signing_secret")

        post_webhooks_response_201 = cls(
            id=id,
            url=url,
            events=events,
            status=status,
            metadata=metadata,
            created_at=created_at,
            updated_at=updated_at,
            failed_at=failed_at,
            failure_reason=failure_reason,
            signing_secret=signing_secret,
        )

        return post_webhooks_response_201

