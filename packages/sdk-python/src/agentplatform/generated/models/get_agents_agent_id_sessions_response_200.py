from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.get_agents_agent_id_sessions_response_200_sessions_item import GetAgentsAgentIdSessionsResponse200SessionsItem





T = TypeVar("T", bound="GetAgentsAgentIdSessionsResponse200")



@_attrs_define
class GetAgentsAgentIdSessionsResponse200:
    """ 
        Attributes:
            sessions (list[GetAgentsAgentIdSessionsResponse200SessionsItem]):
            total (int):
            page (int):
            per_page (int):
     """

    sessions: list[GetAgentsAgentIdSessionsResponse200SessionsItem]
    total: int
    page: int
    per_page: int





    def to_dict(self) -> dict[str, Any]:
        from ..models.get_agents_agent_id_sessions_response_200_sessions_item import GetAgentsAgentIdSessionsResponse200SessionsItem # noqa: PLC0415
        sessions = []
        for sessions_item_data in self.sessions:
            sessions_item = sessions_item_data.to_dict()
            sessions.append(sessions_item)



        total = self.total

        page = self.page

        per_page = self.per_page


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "sessions": sessions,
            "total": total,
            "page": page,
            "per_page": per_page,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.get_agents_agent_id_sessions_response_200_sessions_item import GetAgentsAgentIdSessionsResponse200SessionsItem # noqa: PLC0415
        d = dict(src_dict)
        sessions = []
        _sessions = d.pop("sessions")
        for sessions_item_data in (_sessions):
            sessions_item = GetAgentsAgentIdSessionsResponse200SessionsItem.from_dict(sessions_item_data)



            sessions.append(sessions_item)


        total = d.pop("total")

        page = d.pop("page")

        per_page = d.pop("per_page")

        get_agents_agent_id_sessions_response_200 = cls(
            sessions=sessions,
            total=total,
            page=page,
            per_page=per_page,
        )

        return get_agents_agent_id_sessions_response_200

