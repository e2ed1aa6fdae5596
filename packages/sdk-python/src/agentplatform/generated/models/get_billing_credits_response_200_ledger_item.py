from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.get_billing_credits_response_200_ledger_item_type import GetBillingCreditsResponse200LedgerItemType






T = TypeVar("T", bound="GetBillingCreditsResponse200LedgerItem")



@_attrs_define
class GetBillingCreditsResponse200LedgerItem:
    """ 
        Attributes:
            id (str):
            type_ (GetBillingCreditsResponse200LedgerItemType): reserve holds the most a chat or run can cost before it
                starts; its settle gives back what it did not use, or its release all of it
            amount (int): Signed: charges and reservations are negative
            balance_after (int):
            description (str):
            created_at (str):
     """

    id: str
    type_: GetBillingCreditsResponse200LedgerItemType
    amount: int
    balance_after: int
    description: str
    created_at: str





    def to_dict(self) -> dict[str, Any]:
        id = self.id

        type_ = self.type_.value

        amount = self.amount

        balance_after = self.balance_after

        description = self.description

        created_at = self.created_at


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "type": type_,
            "amount": amount,
            "balance_after": balance_after,
            "description": description,
            "created_at": created_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        type_ = GetBillingCreditsResponse200LedgerItemType(d.pop("type"))




        amount = d.pop("amount")

        balance_after = d.pop("balance_after")

        description = d.pop("description")

        created_at = d.pop("created_at")

        get_billing_credits_response_200_ledger_item = cls(
            id=id,
            type_=type_,
            amount=amount,
            balance_after=balance_after,
            description=description,
            created_at=created_at,
        )

        return get_billing_credits_response_200_ledger_item

