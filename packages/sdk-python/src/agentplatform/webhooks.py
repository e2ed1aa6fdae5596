"""Verifying a webhook delivery's signature (Standard Webhooks 1.0, docs/webhooks.md)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from collections.abc import Mapping

#: Deliveries older or newer than this many seconds are refused (replays).
DEFAULT_TOLERANCE_S = 300


class WebhookSignatureError(Exception):
    """The delivery's signature headers are missing, malformed, too old or do not match."""


def _key(secret: str) -> bytes:
    # A `whsec_<base64>` secret is used as its decoded bytes, any other as its UTF-8 bytes.
    if secret.startswith("whsec_"):
        return base64.b64decode(secret[len("whsec_") :])
    return secret.encode()


def verify_webhook(
    payload: bytes | str,
    headers: Mapping[str, str],
    secret: str,
    *,
    tolerance_s: int = DEFAULT_TOLERANCE_S,
    now: float | None = None,
) -> None:
    """Raises WebhookSignatureError unless ``webhook-signature`` signs ``payload`` with ``secret``.

    ``payload`` must be the request body's exact bytes; ``headers`` the request's headers (any case).
    """
    lower = {k.lower(): v for k, v in headers.items()}
    msg_id, timestamp, signatures = (lower.get(h) for h in ("webhook-id", "webhook-timestamp", "webhook-signature"))
    if not msg_id or not timestamp or not signatures:
        raise WebhookSignatureError("missing webhook-id, webhook-timestamp or webhook-signature header")
    try:
        sent = int(timestamp)
    except ValueError as error:
        raise WebhookSignatureError("webhook-timestamp is not a number") from error
    if abs((time.time() if now is None else now) - sent) > tolerance_s:
        raise WebhookSignatureError("webhook-timestamp is outside the tolerance")
    body = payload.encode() if isinstance(payload, str) else payload
    expected = hmac.new(_key(secret), f"{msg_id}.{sent}.".encode() + body, hashlib.sha256).digest()
    for signature in signatures.split(" "):
        version, _, value = signature.partition(",")
        if version != "v1":
            continue
        try:
            given = base64.b64decode(value)
        except ValueError:
            continue
        if hmac.compare_digest(given, expected):
            return
    raise WebhookSignatureError("no signature matches")
