from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.post_executions_execution_id_retry_body_version import PostExecutionsExecutionIdRetryBodyVersion
from ..types import UNSET, Unset






T = TypeVar("T", bound="PostExecutionsExecutionIdRetryBody")



@_attrs_define
class PostExecutionsExecutionIdRetryBody:
    """ 
        Attributes:
            version (PostExecutionsExecutionIdRetryBodyVersion | Unset): failed: the graph the retried execution ran;
                current: the workflow's graph now Default: PostExecutionsExecutionIdRetryBodyVersion.FAILED.
     """

    version: PostExecutionsExecutionIdRetryBodyVersion | Unset = PostExecutionsExecutionIdRetryBodyVersion.FAILED
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        version: str | Unset = UNSET
        if not isinstance(self.version, Unset):
            version = self.version.value



        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if version is not UNSET:
            field_dict["version"] = version

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        _version = d.pop("version", UNSET)
        version: PostExecutionsExecutionIdRetryBodyVersion | Unset
        if isinstance(_version,  Unset):
            version = UNSET
        else:
            version = PostExecutionsExecutionIdRetryBodyVersion(_version)




        post_executions_execution_id_retry_body = cls(
            version=version,
        )


        post_executions_execution_id_retry_body.additional_properties = d
        return post_executions_execution_id_retry_body

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
