from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from typing import Literal, cast

if TYPE_CHECKING:
  from ..models.post_agents_agent_id_chat_response_200_steps_item_arguments import PostAgentsAgentIdChatResponse200StepsItemArguments





T = TypeVar("T", bound="PostAgentsAgentIdChatResponse200StepsItem")



@_attrs_define
class PostAgentsAgentIdChatResponse200StepsItem:
    """ One tool call of the turn

        Attributes:
            type_ (Literal['tool_call']):
            tool (str): memory_search, memory_add, a grant name, or <mcp server>__<tool>
            arguments (PostAgentsAgentIdChatResponse200StepsItemArguments):
            duration_ms (int):
            output (Any | Unset): The JSON result, when the call succeeded
            error (str | Unset): Why the call failed (also refused, timed out); the model saw it
     """

    type_: Literal['tool_call']
    tool: str
    arguments: PostAgentsAgentIdChatResponse200StepsItemArguments
    duration_ms: int
    output: Any | Unset = UNSET
    error: str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.post_agents_agent_id_chat_response_200_steps_item_arguments import PostAgentsAgentIdChatResponse200StepsItemArguments # noqa: PLC0415
        type_ = self.type_

        tool = self.tool

        arguments = self.arguments.to_dict()

        duration_ms = self.duration_ms

        output = self.output

        error = self.error


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "type": type_,
            "tool": tool,
            "arguments": arguments,
            "duration_ms": duration_ms,
        })
        if output is not UNSET:
            field_dict["output"] = output
        if error is not UNSET:
            field_dict["error"] = error

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.post_agents_agent_id_chat_response_200_steps_item_arguments import PostAgentsAgentIdChatResponse200StepsItemArguments # noqa: PLC0415
        d = dict(src_dict)
        type_ = cast(Literal['tool_call'] , d.pop("type"))
        if type_ != 'tool_call':
            raise ValueError(f"type must match const 'tool_call', got '{type_}'")

        tool = d.pop("tool")

        arguments = PostAgentsAgentIdChatResponse200StepsItemArguments.from_dict(d.pop("arguments"))




        duration_ms = d.pop("duration_ms")

        output = d.pop("output", UNSET)

        error = d.pop("error", UNSET)

        post_agents_agent_id_chat_response_200_steps_item = cls(
            type_=type_,
            tool=tool,
            arguments=arguments,
            duration_ms=duration_ms,
            output=output,
            error=error,
        )

        return post_agents_agent_id_chat_response_200_steps_item

