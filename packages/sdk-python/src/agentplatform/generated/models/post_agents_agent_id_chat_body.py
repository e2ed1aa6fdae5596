from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="PostAgentsAgentIdChatBody")



@_attrs_define
class PostAgentsAgentIdChatBody:
    """ 
        Attributes:
            message (str):
            session_id (str | Unset): Absent: a new session, whose id the answer carries. Given: the agent's session with
                that id (1 to 128 characters of [A-Za-z0-9._:-], e.g. your own conversation id), created on first use; the same
                id on another agent is another session
     """

    message: str
    session_id: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        message = self.message

        session_id = self.session_id


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "message": message,
        })
        if session_id is not UNSET:
            field_dict["session_id"] = session_id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        message = d.pop("message")

        session_id = d.pop("session_id", UNSET)

        post_agents_agent_id_chat_body = cls(
            message=message,
            session_id=session_id,
        )


        post_agents_agent_id_chat_body.additional_properties = d
        return post_agents_agent_id_chat_body

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
