from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.post_webhooks_body_metadata import PostWebhooksBodyMetadata





T = TypeVar("T", bound="PostWebhooksBody")



@_attrs_define
class PostWebhooksBody:
    """ 
        Attributes:
            url (str): http(s) URL that receives the deliveries
            events (list[str]): Event types, dotted prefixes of them (agent.message), "*", or the alias workflow.completed
            secret (str | Unset): Signing secret (16 to 256 printable characters); absent: a whsec_ secret is generated
            metadata (PostWebhooksBodyMetadata | Unset): Free-form keys, at most 8 KiB as JSON
     """

    url: str
    events: list[str]
    secret: str | Unset = UNSET
    metadata: PostWebhooksBodyMetadata | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.post_webhooks_body_metadata import PostWebhooksBodyMetadata # noqa: PLC0415
        url = self.url

        events = self.events



        secret = self.secret

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "url": url,
            "events": events,
        })
        if secret is not UNSET:
            field_dict["secret"] = secret
        if metadata is not UNSET:
            field_dict["metadata"] = metadata

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.post_webhooks_body_metadata import PostWebhooksBodyMetadata # noqa: PLC0415
        d = dict(src_dict)
        url = d.pop("url")

        events = cast(list[str], d.pop("events"))


        secret = d.pop("secret", UNSET)

        _metadata = d.pop("metadata", UNSET)
        metadata: PostWebhooksBodyMetadata | Unset
        if isinstance(_metadata,  Unset):
            metadata = UNSET
        else:
            metadata = PostWebhooksBodyMetadata.from_dict(_metadata)




        post_webhooks_body = cls(
            url=url,
            events=events,
            secret=secret,
            metadata=metadata,
        )


        post_webhooks_body.additional_properties = d
        return post_webhooks_body

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
