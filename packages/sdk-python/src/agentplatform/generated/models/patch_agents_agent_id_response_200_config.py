from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.patch_agents_agent_id_response_200_config_tools_item_type_0 import PatchAgentsAgentIdResponse200ConfigToolsItemType0
  from ..models.patch_agents_agent_id_response_200_config_tools_item_type_1 import PatchAgentsAgentIdResponse200ConfigToolsItemType1
  from ..models.patch_agents_agent_id_response_200_config_tools_item_type_2 import PatchAgentsAgentIdResponse200ConfigToolsItemType2
  from ..models.patch_agents_agent_id_response_200_config_tools_item_type_3 import PatchAgentsAgentIdResponse200ConfigToolsItemType3





T = TypeVar("T", bound="PatchAgentsAgentIdResponse200Config")



@_attrs_define
class PatchAgentsAgentIdResponse200Config:
    """ 
        Attributes:
            model (str | Unset): Model name passed to the LLM provider
            temperature (float | Unset):
            max_tokens (int | Unset): Upper bound of the reply length in tokens
            system_prompt (str | Unset):
            tools (list[PatchAgentsAgentIdResponse200ConfigToolsItemType0 |
                PatchAgentsAgentIdResponse200ConfigToolsItemType1 | PatchAgentsAgentIdResponse200ConfigToolsItemType2 |
                PatchAgentsAgentIdResponse200ConfigToolsItemType3] | Unset):
            max_steps (int | Unset): Model rounds that may call tools in one chat turn (default 8)
            tool_timeout_ms (int | Unset): Time limit of one tool call (default 30000)
     """

    model: str | Unset = UNSET
    temperature: float | Unset = UNSET
    max_tokens: int | Unset = UNSET
    system_prompt: str | Unset = UNSET
    tools: list[PatchAgentsAgentIdResponse200ConfigToolsItemType0 | PatchAgentsAgentIdResponse200ConfigToolsItemType1 | PatchAgentsAgentIdResponse200ConfigToolsItemType2 | PatchAgentsAgentIdResponse200ConfigToolsItemType3] | Unset = UNSET
    max_steps: int | Unset = UNSET
    tool_timeout_ms: int | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.patch_agents_agent_id_response_200_config_tools_item_type_0 import PatchAgentsAgentIdResponse200ConfigToolsItemType0 # noqa: PLC0415
        from ..models.patch_agents_agent_id_response_200_config_tools_item_type_1 import PatchAgentsAgentIdResponse200ConfigToolsItemType1 # noqa: PLC0415
        from ..models.patch_agents_agent_id_response_200_config_tools_item_type_2 import PatchAgentsAgentIdResponse200ConfigToolsItemType2 # noqa: PLC0415
        from ..models.patch_agents_agent_id_response_200_config_tools_item_type_3 import PatchAgentsAgentIdResponse200ConfigToolsItemType3 # noqa: PLC0415
        model = self.model

        temperature = self.temperature

        max_tokens = self.max_tokens

        system_prompt = self.system_prompt

        tools: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.tools, Unset):
            tools = []
            for tools_item_data in self.tools:
                tools_item: dict[str, Any]
                if isinstance(tools_item_data, PatchAgentsAgentIdResponse200ConfigToolsItemType0):
                    tools_item = tools_item_data.to_dict()
                elif isinstance(tools_item_data, PatchAgentsAgentIdResponse200ConfigToolsItemType1):
                    tools_item = tools_item_data.to_dict()
                elif isinstance(tools_item_data, PatchAgentsAgentIdResponse200ConfigToolsItemType2):
                    tools_item = tools_item_data.to_dict()
                else:
                    tools_item = tools_item_data.to_dict()

                tools.append(tools_item)



        max_steps = self.max_steps

        tool_timeout_ms = self.tool_timeout_ms


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if model is not UNSET:
            field_dict["model"] = model
        if temperature is not UNSET:
            field_dict["temperature"] = temperature
        if max_tokens is not UNSET:
            field_dict["max_tokens"] = max_tokens
        if system_prompt is not UNSET:
            field_dict["system_prompt"] = system_prompt
        if tools is not UNSET:
            field_dict["tools"] = tools
        if max_steps is not UNSET:
            field_dict["max_steps"] = max_steps
        if tool_timeout_ms is not UNSET:
            field_dict["tool_timeout_ms"] = tool_timeout_ms

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.patch_agents_agent_id_response_200_config_tools_item_type_0 import PatchAgentsAgentIdResponse200ConfigToolsItemType0 # noqa: PLC0415
        from ..models.patch_agents_agent_id_response_200_config_tools_item_type_1 import PatchAgentsAgentIdResponse200ConfigToolsItemType1 # noqa: PLC0415
        from ..models.patch_agents_agent_id_response_200_config_tools_item_type_2 import PatchAgentsAgentIdResponse200ConfigToolsItemType2 # noqa: PLC0415
        from ..models.patch_agents_agent_id_response_200_config_tools_item_type_3 import PatchAgentsAgentIdResponse200ConfigToolsItemType3 # noqa: PLC0415
        d = dict(src_dict)
        model = d.pop("model", UNSET)

        temperature = d.pop("temperature", UNSET)

        max_tokens = d.pop("max_tokens", UNSET)

        system_prompt = d.pop("system_prompt", UNSET)

        _tools = d.pop("tools", UNSET)
        tools: list[PatchAgentsAgentIdResponse200ConfigToolsItemType0 | PatchAgentsAgentIdResponse200ConfigToolsItemType1 | PatchAgentsAgentIdResponse200ConfigToolsItemType2 | PatchAgentsAgentIdResponse200ConfigToolsItemType3] | Unset = UNSET
        if _tools is not UNSET:
            tools = []
            for tools_item_data in _tools:
                def _parse_tools_item(data: object) -> PatchAgentsAgentIdResponse200ConfigToolsItemType0 | PatchAgentsAgentIdResponse200ConfigToolsItemType1 | PatchAgentsAgentIdResponse200ConfigToolsItemType2 | PatchAgentsAgentIdResponse200ConfigToolsItemType3:
                    try:
                        if not isinstance(data, dict):
                            raise TypeError()
                        tools_item_type_0 = PatchAgentsAgentIdResponse200ConfigToolsItemType0.from_dict(data)



                        return tools_item_type_0
                    except (TypeError, ValueError, AttributeError, KeyError):
                        pass
                    try:
                        if not isinstance(data, dict):
                            raise TypeError()
                        tools_item_type_1 = PatchAgentsAgentIdResponse200ConfigToolsItemType1.from_dict(data)



                        return tools_item_type_1
                    except (TypeError, ValueError, AttributeError, KeyError):
                        pass
                    try:
                        if not isinstance(data, dict):
                            raise TypeError()
                        tools_item_type_2 = PatchAgentsAgentIdResponse200ConfigToolsItemType2.from_dict(data)



                        return tools_item_type_2
                    except (TypeError, ValueError, AttributeError, KeyError):
                        pass
                    if not isinstance(data, dict):
                        raise TypeError()
                    tools_item_type_3 = PatchAgentsAgentIdResponse200ConfigToolsItemType3.from_dict(data)



                    return tools_item_type_3

                tools_item = _parse_tools_item(tools_item_data)

                tools.append(tools_item)


        max_steps = d.pop("max_steps", UNSET)

        tool_timeout_ms = d.pop("tool_timeout_ms", UNSET)

        patch_agents_agent_id_response_200_config = cls(
            model=model,
            temperature=temperature,
            max_tokens=max_tokens,
            system_prompt=system_prompt,
            tools=tools,
            max_steps=max_steps,
            tool_timeout_ms=tool_timeout_ms,
        )

        return patch_agents_agent_id_response_200_config

