from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.get_billing_credits_response_200_ledger_item import GetBillingCreditsResponse200LedgerItem





T = TypeVar("T", bound="GetBillingCreditsResponse200")



@_attrs_define
class GetBillingCreditsResponse200:
    """ 
        Attributes:
            balance (int):
            plan (str):
            ledger (list[GetBillingCreditsResponse200LedgerItem]):
     """

    balance: int
    plan: str
    ledger: list[GetBillingCreditsResponse200LedgerItem]





    def to_dict(self) -> dict[str, Any]:
        from ..models.get_billing_credits_response_200_ledger_item import GetBillingCreditsResponse200LedgerItem # noqa: PLC0415
        balance = self.balance

        plan = self.plan

        ledger = []
        for ledger_item_data in self.ledger:
            ledger_item = ledger_item_data.to_dict()
            ledger.append(ledger_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "balance": balance,
            "plan": plan,
            "ledger": ledger,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.get_billing_credits_response_200_ledger_item import GetBillingCreditsResponse200LedgerItem # noqa: PLC0415
        d = dict(src_dict)
        balance = d.pop("balance")

        plan = d.pop("plan")

        ledger = []
        _ledger = d.pop("ledger")
        for ledger_item_data in (_ledger):
            ledger_item = GetBillingCreditsResponse200LedgerItem.from_dict(ledger_item_data)



            ledger.append(ledger_item)


        get_billing_credits_response_200 = cls(
            balance=balance,
            plan=plan,
            ledger=ledger,
        )

        return get_billing_credits_response_200

