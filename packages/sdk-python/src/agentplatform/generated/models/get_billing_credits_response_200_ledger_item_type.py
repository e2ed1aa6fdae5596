from enum import StrEnum

class GetBillingCreditsResponse200LedgerItemType(StrEnum):
    CHARGE = "charge"
    GRANT = "grant"
    PURCHASE = "purchase"
    REFUND = "refund"
    RELEASE = "release"
    RESERVE = "reserve"
    SETTLE = "settle"

    def __str__(self) -> str:
        return str(self.value)
