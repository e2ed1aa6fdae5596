from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="GetAgentsAgentIdSessionsResponse200SessionsItem")



@_attrs_define
class GetAgentsAgentIdSessionsResponse200SessionsItem:
    """ 
        Attributes:
            id (str):
            agent_id (str):
            title (str):
            message_count (int):
            created_at (str):
            last_message_at (str):
     """

    id: str
    agent_id: str
    title: str
    message_count: int
    created_at: str
    last_message_at: str





    def to_dict(self) -> dict[str, Any]:
        id = self.id

        agent_id = self.agent_id

        title = self.title

        message_count = self.message_count

        created_at = self.created_at

        last_message_at = self.last_message_at


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "agent_id": agent_id,
            "title": title,
            "message_count": message_count,
            "created_at": created_at,
            "last_message_at": last_message_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        agent_id = d.pop("agent_id")

        title = d.pop("title")

        message_count = d.pop("message_count")

        created_at = d.pop("created_at")

        last_message_at = d.pop("last_message_at")

        get_agents_agent_id_sessions_response_200_sessions_item = cls(
            id=id,
            agent_id=agent_id,
            title=title,
            message_count=message_count,
            created_at=created_at,
            last_message_at=last_message_at,
        )

        return get_agents_agent_id_sessions_response_200_sessions_item

