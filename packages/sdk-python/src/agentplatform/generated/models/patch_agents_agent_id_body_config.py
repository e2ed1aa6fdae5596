from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.patch_agents_agent_id_body_config_tools_type_0_item_type_0 import PatchAgentsAgentIdBodyConfigToolsType0ItemType0
  from ..models.patch_agents_agent_id_body_config_tools_type_0_item_type_1 import PatchAgentsAgentIdBodyConfigToolsType0ItemType1
  from ..models.patch_agents_agent_id_body_config_tools_type_0_item_type_2 import PatchAgentsAgentIdBodyConfigToolsType0ItemType2
  from ..models.patch_agents_agent_id_body_config_tools_type_0_item_type_3 import PatchAgentsAgentIdBodyConfigToolsType0ItemType3
  from ..models.patch_agents_agent_id_body_config_tools_type_0_item_type_4 import PatchAgentsAgentIdBodyConfigToolsType0ItemType4





T = TypeVar("T", bound="PatchAgentsAgentIdBodyConfig")



@_attrs_define
class PatchAgentsAgentIdBodyConfig:
    """ 
        Attributes:
            model (None | str | Unset):
            temperature (float | None | Unset):
            max_tokens (int | None | Unset):
            system_prompt (None | str | Unset):
            tools (list[PatchAgentsAgentIdBodyConfigToolsType0ItemType0 | PatchAgentsAgentIdBodyConfigToolsType0ItemType1 |
                PatchAgentsAgentIdBodyConfigToolsType0ItemType2 | PatchAgentsAgentIdBodyConfigToolsType0ItemType3 |
                PatchAgentsAgentIdBodyConfigToolsType0ItemType4] | None | Unset): Replaces the list; an http or mcp grant given
                without headers keeps those of the grant of that name
            max_steps (int | None | Unset):
            tool_timeout_ms (int | None | Unset):
     """

    model: None | str | Unset = UNSET
    temperature: float | None | Unset = UNSET
    max_tokens: int | None | Unset = UNSET
    system_prompt: None | str | Unset = UNSET
    tools: list[PatchAgentsAgentIdBodyConfigToolsType0ItemType0 | PatchAgentsAgentIdBodyConfigToolsType0ItemType1 | PatchAgentsAgentIdBodyConfigToolsType0ItemType2 | PatchAgentsAgentIdBodyConfigToolsType0ItemType3 | PatchAgentsAgentIdBodyConfigToolsType0ItemType4] | None | Unset = UNSET
    max_steps: int | None | Unset = UNSET
    tool_timeout_ms: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.patch_agents_agent_id_body_config_tools_type_0_item_type_0 import PatchAgentsAgentIdBodyConfigToolsType0ItemType0 # noqa: PLC0415
        from ..models.patch_agents_agent_id_body_config_tools_type_0_item_type_1 import PatchAgentsAgentIdBodyConfigToolsType0ItemType1 # noqa: PLC0415
        from ..models.patch_agents_agent_id_body_config_tools_type_0_item_type_2 import PatchAgentsAgentIdBodyConfigToolsType0ItemType2 # noqa: PLC0415
        from ..models.patch_agents_agent_id_body_config_tools_type_0_item_type_3 import PatchAgentsAgentIdBodyConfigToolsType0ItemType3 # noqa: PLC0415
        from ..models.patch_agents_agent_id_body_config_tools_type_0_item_type_4 import PatchAgentsAgentIdBodyConfigToolsType0ItemType4 # noqa: PLC0415
        model: None | str | Unset
        if isinstance(self.model, Unset):
            model = UNSET
        else:
            model = self.model

        temperature: float | None | Unset
        if isinstance(self.temperature, Unset):
            temperature = UNSET
        else:
            temperature = self.temperature

        max_tokens: int | None | Unset
        if isinstance(self.max_tokens, Unset):
            max_tokens = UNSET
        else:
            max_tokens = self.max_tokens

        system_prompt: None | str | Unset
        if isinstance(self.system_prompt, Unset):
            system_prompt = UNSET
        else:
            system_prompt = self.system_prompt

        tools: list[dict[str, Any]] | None | Unset
        if isinstance(self.tools, Unset):
            tools = UNSET
        elif isinstance(self.tools, list):
            tools = []
            for tools_type_0_item_data in self.tools:
                tools_type_0_item: dict[str, Any]
                if isinstance(tools_type_0_item_data, PatchAgentsAgentIdBodyConfigToolsType0ItemType0):
                    tools_type_0_item = tools_type_0_item_data.to_dict()
                elif isinstance(tools_type_0_item_data, PatchAgentsAgentIdBodyConfigToolsType0ItemType1):
                    tools_type_0_item = tools_type_0_item_data.to_dict()
                elif isinstance(tools_type_0_item_data, PatchAgentsAgentIdBodyConfigToolsType0ItemType2):
                    tools_type_0_item = tools_type_0_item_data.to_dict()
                elif isinstance(tools_type_0_item_data, PatchAgentsAgentIdBodyConfigToolsType0ItemType3):
                    tools_type_0_item = tools_type_0_item_data.to_dict()
                else:
                    tools_type_0_item = tools_type_0_item_data.to_dict()

                tools.append(tools_type_0_item)


        else:
            tools = self.tools

        max_steps: int | None | Unset
        if isinstance(self.max_steps, Unset):
            max_steps = UNSET
        else:
            max_steps = self.max_steps

        tool_timeout_ms: int | None | Unset
        if isinstance(self.tool_timeout_ms, Unset):
            tool_timeout_ms = UNSET
        else:
            tool_timeout_ms = self.tool_timeout_ms


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
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
        from ..models.patch_agents_agent_id_body_config_tools_type_0_item_type_0 import PatchAgentsAgentIdBodyConfigToolsType0ItemType0 # noqa: PLC0415
        from ..models.patch_agents_agent_id_body_config_tools_type_0_item_type_1 import PatchAgentsAgentIdBodyConfigToolsType0ItemType1 # noqa: PLC0415
        from ..models.patch_agents_agent_id_body_config_tools_type_0_item_type_2 import PatchAgentsAgentIdBodyConfigToolsType0ItemType2 # noqa: PLC0415
        from ..models.patch_agents_agent_id_body_config_tools_type_0_item_type_3 import PatchAgentsAgentIdBodyConfigToolsType0ItemType3 # noqa: PLC0415
        from ..models.patch_agents_agent_id_body_config_tools_type_0_item_type_4 import PatchAgentsAgentIdBodyConfigToolsType0ItemType4 # noqa: PLC0415
        d = dict(src_dict)
        def _parse_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        model = _parse_model(d.pop("model", UNSET))


        def _parse_temperature(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        temperature = _parse_temperature(d.pop("temperature", UNSET))


        def _parse_max_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_tokens = _parse_max_tokens(d.pop("max_tokens", UNSET))


        def _parse_system_prompt(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        system_prompt = _parse_system_prompt(d.pop("system_prompt", UNSET))


        def _parse_tools(data: object) -> list[PatchAgentsAgentIdBodyConfigToolsType0ItemType0 | PatchAgentsAgentIdBodyConfigToolsType0ItemType1 | PatchAgentsAgentIdBodyConfigToolsType0ItemType2 | PatchAgentsAgentIdBodyConfigToolsType0ItemType3 | PatchAgentsAgentIdBodyConfigToolsType0ItemType4] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                tools_type_0 = []
                _tools_type_0 = data
                for tools_type_0_item_data in (_tools_type_0):
                    def _parse_tools_type_0_item(data: object) -> PatchAgentsAgentIdBodyConfigToolsType0ItemType0 | PatchAgentsAgentIdBodyConfigToolsType0ItemType1 | PatchAgentsAgentIdBodyConfigToolsType0ItemType2 | PatchAgentsAgentIdBodyConfigToolsType0ItemType3 | PatchAgentsAgentIdBodyConfigToolsType0ItemType4:
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            tools_type_0_item_type_0 = PatchAgentsAgentIdBodyConfigToolsType0ItemType0.from_dict(data)



                            return tools_type_0_item_type_0
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            tools_type_0_item_type_1 = PatchAgentsAgentIdBodyConfigToolsType0ItemType1.from_dict(data)



                            return tools_type_0_item_type_1
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            tools_type_0_item_type_2 = PatchAgentsAgentIdBodyConfigToolsType0ItemType2.from_dict(data)



                            return tools_type_0_item_type_2
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            tools_type_0_item_type_3 = PatchAgentsAgentIdBodyConfigToolsType0ItemType3.from_dict(data)



                            return tools_type_0_item_type_3
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        if not isinstance(data, dict):
                            raise TypeError()
                        tools_type_0_item_type_4 = PatchAgentsAgentIdBodyConfigToolsType0ItemType4.from_dict(data)



                        return tools_type_0_item_type_4

                    tools_type_0_item = _parse_tools_type_0_item(tools_type_0_item_data)

                    tools_type_0.append(tools_type_0_item)

                return tools_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[PatchAgentsAgentIdBodyConfigToolsType0ItemType0 | PatchAgentsAgentIdBodyConfigToolsType0ItemType1 | PatchAgentsAgentIdBodyConfigToolsType0ItemType2 | PatchAgentsAgentIdBodyConfigToolsType0ItemType3 | PatchAgentsAgentIdBodyConfigToolsType0ItemType4] | None | Unset, data)

        tools = _parse_tools(d.pop("tools", UNSET))


        def _parse_max_steps(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_steps = _parse_max_steps(d.pop("max_steps", UNSET))


        def _parse_tool_timeout_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        tool_timeout_ms = _parse_tool_timeout_ms(d.pop("tool_timeout_ms", UNSET))


        patch_agents_agent_id_body_config = cls(
            model=model,
            temperature=temperature,
            max_tokens=max_tokens,
            system_prompt=system_prompt,
            tools=tools,
            max_steps=max_steps,
            tool_timeout_ms=tool_timeout_ms,
        )


        patch_agents_agent_id_body_config.additional_properties = d
        return patch_agents_agent_id_body_config

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
