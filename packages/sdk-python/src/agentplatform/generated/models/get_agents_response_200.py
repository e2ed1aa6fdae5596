from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.get_agents_response_200_agents_item import GetAgentsResponse200AgentsItem





T = TypeVar("T", bound="GetAgentsResponse200")



@_attrs_define
class GetAgentsResponse200:
    """ 
        Attributes:
            agents (list[GetAgentsResponse200AgentsItem]):
            total (int):
            page (int):
            per_page (int):
     """

    agents: list[GetAgentsResponse200AgentsItem]
    total: int
    page: int
    per_page: int





    def to_dict(self) -> dict[str, Any]:
        from ..models.get_agents_response_200_agents_item import GetAgentsResponse200AgentsItem # noqa: PLC0415
        agents = []
        for agents_item_data in self.agents:
            agents_item = agents_item_data.to_dict()
            agents.append(agents_item)



        total = self.total

        page = self.page

        per_page = self.per_page


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "agents": agents,
            "total": total,
            "page": page,
            "per_page": per_page,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.get_agents_response_200_agents_item import GetAgentsResponse200AgentsItem # noqa: PLC0415
        d = dict(src_dict)
        agents = []
        _agents = d.pop("agents")
        for agents_item_data in (_agents):
            agents_item = GetAgentsResponse200AgentsItem.from_dict(agents_item_data)



            agents.append(agents_item)


        total = d.pop("total")

        page = d.pop("page")

        per_page = d.pop("per_page")

        get_agents_response_200 = cls(
            agents=agents,
            total=total,
            page=page,
            per_page=per_page,
        )

        return get_agents_response_200

