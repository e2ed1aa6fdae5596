from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.post_agents_agent_id_chat_response_200_stop_reason import PostAgentsAgentIdChatResponse200StopReason
from typing import cast
from typing import Literal, cast

if TYPE_CHECKING:
  from ..models.post_agents_agent_id_chat_response_200_steps_item import PostAgentsAgentIdChatResponse200StepsItem
  from ..models.post_agents_agent_id_chat_response_200_usage import PostAgentsAgentIdChatResponse200Usage





T = TypeVar("T", bound="PostAgentsAgentIdChatResponse200")



@_attrs_define
class PostAgentsAgentIdChatResponse200:
    """ With `Accept: text/event-stream` the answer is a server-sent event stream instead: `start` {id, session_id,
    user_message_id, model}, then `delta` {content} pieces and a `step` event per finished tool call, then `done` with
    this object; a failure after the stream started is an `error` event {error, message}.

        Attributes:
            id (str):
            session_id (str):
            content (str):
            role (Literal['assistant']):
            model (str): `local` when the built-in offline responder answered
            usage (PostAgentsAgentIdChatResponse200Usage):
            credits_used (int):
            latency_ms (int):
            created_at (str):
            steps (list[PostAgentsAgentIdChatResponse200StepsItem]): The tool calls the turn made, in order (empty without
                tools)
            stop_reason (PostAgentsAgentIdChatResponse200StopReason): Why the turn ended: `stop`, the model answered;
                `max_tokens`, the reply reached its token limit and was cut there; `insufficient_credits`, the balance could not
                cover the next model round, so the turn ended with the rounds it ran (`content` is what the model had said by
                then, possibly empty, and `credits_used` what they cost)
     """

    id: str
    session_id: str
    content: str
    role: Literal['assistant']
    model: str
    usage: PostAgentsAgentIdChatResponse200Usage
    credits_used: int
    latency_ms: int
    created_at: str
    steps: list[PostAgentsAgentIdChatResponse200StepsItem]
    stop_reason: PostAgentsAgentIdChatResponse200StopReason





    def to_dict(self) -> dict[str, Any]:
        from ..models.post_agents_agent_id_chat_response_200_steps_item import PostAgentsAgentIdChatResponse200StepsItem # noqa: PLC0415
        from ..models.post_agents_agent_id_chat_response_200_usage import PostAgentsAgentIdChatResponse200Usage # noqa: PLC0415
        id = self.id

        session_id = self.session_id

        content = self.content

        role = self.role

        model = self.model

        usage = self.usage.to_dict()

        credits_used = self.credits_used

        latency_ms = self.latency_ms

        created_at = self.created_at

        steps = []
        for steps_item_data in self.steps:
            steps_item = steps_item_data.to_dict()
            steps.append(steps_item)



        stop_reason = self.stop_reason.value


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "session_id": session_id,
            "content": content,
            "role": role,
            "model": model,
            "usage": usage,
            "credits_used": credits_used,
            "latency_ms": latency_ms,
            "created_at": created_at,
            "steps": steps,
            "stop_reason": stop_reason,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.post_agents_agent_id_chat_response_200_steps_item import PostAgentsAgentIdChatResponse200StepsItem # noqa: PLC0415
        from ..models.post_agents_agent_id_chat_response_200_usage import PostAgentsAgentIdChatResponse200Usage # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        session_id = d.pop("session_id")

        content = d.pop("content")

        role = cast(Literal['assistant'] , d.pop("role"))
        if role != 'assistant':
            raise ValueError(f"role must match const 'assistant', got '{role}'")

        model = d.pop("model")

        usage = PostAgentsAgentIdChatResponse200Usage.from_dict(d.pop("usage"))




        credits_used = d.pop("credits_used")

        latency_ms = d.pop("latency_ms")

        created_at = d.pop("created_at")

        steps = []
        _steps = d.pop("steps")
        for steps_item_data in (_steps):
            steps_item = PostAgentsAgentIdChatResponse200StepsItem.from_dict(steps_item_data)



            steps.append(steps_item)


        stop_reason = PostAgentsAgentIdChatResponse200StopReason(d.pop("stop_reason"))




        post_agents_agent_id_chat_response_200 = cls(
            id=id,
            session_id=session_id,
            content=content,
            role=role,
            model=model,
            usage=usage,
            credits_used=credits_used,
            latency_ms=latency_ms,
            created_at=created_at,
            steps=steps,
            stop_reason=stop_reason,
        )

        return post_agents_agent_id_chat_response_200

