from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="PostAgentsAgentIdChatResponse200Usage")



@_attrs_define
class PostAgentsAgentIdChatResponse200Usage:
    """ 
        Attributes:
            prompt_tokens (int):
            completion_tokens (int):
            total_tokens (int):
     """

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int





    def to_dict(self) -> dict[str, Any]:
        prompt_tokens = self.prompt_tokens

        completion_tokens = self.completion_tokens

        total_tokens = self.total_tokens


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": total_tokens,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        prompt_tokens = d.pop("prompt_tokens")

        completion_tokens = d.pop("completion_tokens")

        total_tokens = d.pop("total_tokens")

        post_agents_agent_id_chat_response_200_usage = cls(
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            total_tokens=total_tokens,
        )

        return post_agents_agent_id_chat_response_200_usage

