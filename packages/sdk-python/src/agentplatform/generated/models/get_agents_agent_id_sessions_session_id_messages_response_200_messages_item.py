from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.get_agents_agent_id_sessions_session_id_messages_response_200_messages_item_role import GetAgentsAgentIdSessionsSessionIdMessagesResponse200MessagesItemRole
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.get_agents_agent_id_sessions_session_id_messages_response_200_messages_item_step import GetAgentsAgentIdSessionsSessionIdMessagesResponse200MessagesItemStep
  from ..models.get_agents_agent_id_sessions_session_id_messages_response_200_messages_item_usage import GetAgentsAgentIdSessionsSessionIdMessagesResponse200MessagesItemUsage





T = TypeVar("T", bound="GetAgentsAgentIdSessionsSessionIdMessagesResponse200MessagesItem")



@_attrs_define
class GetAgentsAgentIdSessionsSessionIdMessagesResponse200MessagesItem:
    """ 
        Attributes:
            id (str):
            session_id (str):
            role (GetAgentsAgentIdSessionsSessionIdMessagesResponse200MessagesItemRole):
            content (str): Tool messages: the result as the model saw it (JSON)
            created_at (str):
            model (str | Unset):
            usage (GetAgentsAgentIdSessionsSessionIdMessagesResponse200MessagesItemUsage | Unset):
            step (GetAgentsAgentIdSessionsSessionIdMessagesResponse200MessagesItemStep | Unset): Tool messages: the call and
                its result
     """

    id: str
    session_id: str
    role: GetAgentsAgentIdSessionsSessionIdMessagesResponse200MessagesItemRole
    content: str
    created_at: str
    model: str | Unset = UNSET
    usage: GetAgentsAgentIdSessionsSessionIdMessagesResponse200MessagesItemUsage | Unset = UNSET
    step: GetAgentsAgentIdSessionsSessionIdMessagesResponse200MessagesItemStep | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.get_agents_agent_id_sessions_session_id_messages_response_200_messages_item_step import GetAgentsAgentIdSessionsSessionIdMessagesResponse200MessagesItemStep # noqa: PLC0415
        from ..models.get_agents_agent_id_sessions_session_id_messages_response_200_messages_item_usage import GetAgentsAgentIdSessionsSessionIdMessagesResponse200MessagesItemUsage # noqa: PLC0415
        id = self.id

        session_id = self.session_id

        role = self.role.value

        content = self.content

        created_at = self.created_at

        model = self.model

        usage: dict[str, Any] | Unset = UNSET
        if not isinstance(self.usage, Unset):
            usage = self.usage.to_dict()

        step: dict[str, Any] | Unset = UNSET
        if not isinstance(self.step, Unset):
            step = self.step.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "session_id": session_id,
            "role": role,
            "content": content,
            "created_at": created_at,
        })
        if model is not UNSET:
            field_dict["model"] = model
        if usage is not UNSET:
            field_dict["usage"] = usage
        if step is not UNSET:
            field_dict["step"] = step

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.get_agents_agent_id_sessions_session_id_messages_response_200_messages_item_step import GetAgentsAgentIdSessionsSessionIdMessagesResponse200MessagesItemStep # noqa: PLC0415
        from ..models.get_agents_agent_id_sessions_session_id_messages_response_200_messages_item_usage import GetAgentsAgentIdSessionsSessionIdMessagesResponse200MessagesItemUsage # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        session_id = d.pop("session_id")

        role = GetAgentsAgentIdSessionsSessionIdMessagesResponse200MessagesItemRole(d.pop("role"))




        content = d.pop("content")

        created_at = d.pop("created_at")

        model = d.pop("model", UNSET)

        _usage = d.pop("usage", UNSET)
        usage: GetAgentsAgentIdSessionsSessionIdMessagesResponse200MessagesItemUsage | Unset
        if isinstance(_usage,  Unset):
            usage = UNSET
        else:
            usage = GetAgentsAgentIdSessionsSessionIdMessagesResponse200MessagesItemUsage.from_dict(_usage)




        _step = d.pop("step", UNSET)
        step: GetAgentsAgentIdSessionsSessionIdMessagesResponse200MessagesItemStep | Unset
        if isinstance(_step,  Unset):
            step = UNSET
        else:
            step = GetAgentsAgentIdSessionsSessionIdMessagesResponse200MessagesItemStep.from_dict(_step)




        get_agents_agent_id_sessions_session_id_messages_response_200_messages_item = cls(
            id=id,
            session_id=session_id,
            role=role,
            content=content,
            created_at=created_at,
            model=model,
            usage=usage,
            step=step,
        )

        return get_agents_agent_id_sessions_session_id_messages_response_200_messages_item

