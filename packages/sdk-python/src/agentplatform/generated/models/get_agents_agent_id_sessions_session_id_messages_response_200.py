from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.get_agents_agent_id_sessions_session_id_messages_response_200_messages_item import GetAgentsAgentIdSessionsSessionIdMessagesResponse200MessagesItem





T = TypeVar("T", bound="GetAgentsAgentIdSessionsSessionIdMessagesResponse200")



@_attrs_define
class GetAgentsAgentIdSessionsSessionIdMessagesResponse200:
    """ 
        Attributes:
            messages (list[GetAgentsAgentIdSessionsSessionIdMessagesResponse200MessagesItem]):
            total (int):
            page (int):
            per_page (int):
     """

    messages: list[GetAgentsAgentIdSessionsSessionIdMessagesResponse200MessagesItem]
    total: int
    page: int
    per_page: int





    def to_dict(self) -> dict[str, Any]:
        from ..models.get_agents_agent_id_sessions_session_id_messages_response_200_messages_item import GetAgentsAgentIdSessionsSessionIdMessagesResponse200MessagesItem # noqa: PLC0415
        messages = []
        for messages_item_data in self.messages:
            messages_item = messages_item_data.to_dict()
            messages.append(messages_item)



        total = self.total

        page = self.page

        per_page = self.per_page


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "messages": messages,
            "total": total,
            "page": page,
            "per_page": per_page,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.get_agents_agent_id_sessions_session_id_messages_response_200_messages_item import GetAgentsAgentIdSessionsSessionIdMessagesResponse200MessagesItem # noqa: PLC0415
        d = dict(src_dict)
        messages = []
        _messages = d.pop("messages")
        for messages_item_data in (_messages):
            messages_item = GetAgentsAgentIdSessionsSessionIdMessagesResponse200MessagesItem.from_dict(messages_item_data)



            messages.append(messages_item)


        total = d.pop("total")

        page = d.pop("page")

        per_page = d.pop("per_page")

        get_agents_agent_id_sessions_session_id_messages_response_200 = cls(
            messages=messages,
            total=total,
            page=page,
            per_page=per_page,
        )

        return get_agents_agent_id_sessions_session_id_messages_response_200

