from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.post_workflows_workflow_id_execute_body_input import PostWorkflowsWorkflowIdExecuteBodyInput





T = TypeVar("T", bound="PostWorkflowsWorkflowIdExecuteBody")



@_attrs_define
class PostWorkflowsWorkflowIdExecuteBody:
    """ 
        Attributes:
            input_ (PostWorkflowsWorkflowIdExecuteBodyInput | Unset):
            async_ (bool | Unset):  Default: False.
     """

    input_: PostWorkflowsWorkflowIdExecuteBodyInput | Unset = UNSET
    async_: bool | Unset = False
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.post_workflows_workflow_id_execute_body_input import PostWorkflowsWorkflowIdExecuteBodyInput # noqa: PLC0415
        input_: dict[str, Any] | Unset = UNSET
        if not isinstance(self.input_, Unset):
            input_ = self.input_.to_dict()

        async_ = self.async_


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if input_ is not UNSET:
            field_dict["input"] = input_
        if async_ is not UNSET:
            field_dict["async"] = async_

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.post_workflows_workflow_id_execute_body_input import PostWorkflowsWorkflowIdExecuteBodyInput # noqa: PLC0415
        d = dict(src_dict)
        _input_ = d.pop("input", UNSET)
        input_: PostWorkflowsWorkflowIdExecuteBodyInput | Unset
        if isinstance(_input_,  Unset):
            input_ = UNSET
        else:
            input_ = PostWorkflowsWorkflowIdExecuteBodyInput.from_dict(_input_)




        async_ = d.pop("async", UNSET)

        post_workflows_workflow_id_execute_body = cls(
            input_=input_,
            async_=async_,
        )


        post_workflows_workflow_id_execute_body.additional_properties = d
        return post_workflows_workflow_id_execute_body

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
