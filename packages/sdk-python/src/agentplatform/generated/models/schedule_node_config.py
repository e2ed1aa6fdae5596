from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.schedule_node_config_input import ScheduleNodeConfigInput





T = TypeVar("T", bound="ScheduleNodeConfig")



@_attrs_define
class ScheduleNodeConfig:
    """ config of a schedule node (the plan sets the smallest interval: docs/workflows.md)

        Attributes:
            cron (str): 5 fields (minute first) or 6 (second first), e.g. "0 9 * * 1-5" or "*/30 * * * * *"
            timezone (str | Unset): IANA timezone the cron is read in Default: 'UTC'.
            input_ (ScheduleNodeConfigInput | Unset): the scheduled execution's input
            catch_up_ms (int | Unset): the newest tick missed while no replica ran still runs once when it is at most this
                old (default 0)
     """

    cron: str
    timezone: str | Unset = 'UTC'
    input_: ScheduleNodeConfigInput | Unset = UNSET
    catch_up_ms: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.schedule_node_config_input import ScheduleNodeConfigInput # noqa: PLC0415
        cron = self.cron

        timezone = self.timezone

        input_: dict[str, Any] | Unset = UNSET
        if not isinstance(self.input_, Unset):
            input_ = self.input_.to_dict()

        catch_up_ms = self.catch_up_ms


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "cron": cron,
        })
        if timezone is not UNSET:
            field_dict["timezone"] = timezone
        if input_ is not UNSET:
            field_dict["input"] = input_
        if catch_up_ms is not UNSET:
            field_dict["catch_up_ms"] = catch_up_ms

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.schedule_node_config_input import ScheduleNodeConfigInput # noqa: PLC0415
        d = dict(src_dict)
        cron = d.pop("cron")

        timezone = d.pop("timezone", UNSET)

        _input_ = d.pop("input", UNSET)
        input_: ScheduleNodeConfigInput | Unset
        if isinstance(_input_,  Unset):
            input_ = UNSET
        else:
            input_ = ScheduleNodeConfigInput.from_dict(_input_)




        catch_up_ms = d.pop("catch_up_ms", UNSET)

        schedule_node_config = cls(
            cron=cron,
            timezone=timezone,
            input_=input_,
            catch_up_ms=catch_up_ms,
        )


        schedule_node_config.additional_properties = d
        return schedule_node_config

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
