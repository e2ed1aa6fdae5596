from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="PostBillingPurchasesResponse201")



@_attrs_define
class PostBillingPurchasesResponse201:
    """ 
        Attributes:
            id (str):
            credits_ (int):
            balance (int):
            created_at (str):
     """

    id: str
    credits_: int
    balance: int
    created_at: str





    def to_dict(self) -> dict[str, Any]:
        id = self.id

        credits_ = self.credits_

        balance = self.balance

        created_at = self.created_at


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "credits": credits_,
            "balance": balance,
            "created_at": created_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        credits_ = d.pop("credits")

        balance = d.pop("balance")

        created_at = d.pop("created_at")

        post_billing_purchases_response_201 = cls(
            id=id,
            credits_=credits_,
            balance=balance,
            created_at=created_at,
        )

        return post_billing_purchases_response_201

