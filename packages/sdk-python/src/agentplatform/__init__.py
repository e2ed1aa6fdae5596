"""The Agent Platform API for Python: the generated client (``agentplatform.generated``) with a
thin hand-written layer (auth and refresh, typed errors, paging, SSE chat, webhook signatures)."""

from .client import AgentPlatform, AsyncAgentPlatform, ChatEvent
from .errors import (
    ApiError,
    AuthenticationError,
    ConflictError,
    FieldIssue,
    InsufficientCreditsError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    ValidationError,
)
from .webhooks import WebhookSignatureError, verify_webhook

__all__ = [
    "AgentPlatform",
    "AsyncAgentPlatform",
    "ChatEvent",
    "ApiError",
    "AuthenticationError",
    "ConflictError",
    "FieldIssue",
    "InsufficientCreditsError",
    "NotFoundError",
    "PermissionDeniedError",
    "RateLimitError",
    "ServerError",
    "ValidationError",
    "WebhookSignatureError",
    "verify_webhook",
]
