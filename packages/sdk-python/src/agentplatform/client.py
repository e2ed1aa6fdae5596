"""The hand-written layer over the generated client (``agentplatform.generated``): what generation
cannot do. Log in and refresh the access token when it expires, raise the API's errors as typed
exceptions, iterate over paged lists, and read a chat's server-sent events. Sync and async.

Every generated operation is a module with ``sync_detailed`` and ``asyncio_detailed``; ``call``
takes one and its keyword arguments::

    from agentplatform import AgentPlatform
    from agentplatform.generated.api.agents import post_agents
    from agentplatform.generated.models import PostAgentsBody

    api = AgentPlatform("http://127.0.0.1:8080")
    api.login("ada@example.com", "correct horse battery")
    agent = api.call(post_agents, body=PostAgentsBody(name="Support bot", type_="support"))
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import httpx

from .errors import ApiError, AuthenticationError, error_from
from .generated.api.auth import post_auth_login, post_auth_refresh, post_auth_register
from .generated.client import AuthenticatedClient, Client
from .generated.models import PostAuthLoginBody, PostAuthRefreshBody, PostAuthRegisterBody
from .generated.types import UNSET

#: The flat-shape base path of the API (docs/api-guide.md).
API_PREFIX = "/api/v1"


@dataclass
class ChatEvent:
    """One server-sent event of a streamed chat: start, delta, step, done or error."""

    event: str
    data: dict[str, Any]


class _SseParser:
    """Server-sent events from their lines, one event per blank line."""

    def __init__(self) -> None:
        self.event, self.data = "message", []

    def feed(self, line: str) -> ChatEvent | None:
        if line == "":
            done = ChatEvent(self.event, json.loads("\n".join(self.data))) if self.data else None
            self.event, self.data = "message", []
            return done
        if line.startswith("event:"):
            self.event = line[6:].strip()
        elif line.startswith("data:"):
            self.data.append(line[5:].strip())
        return None


class _Base:
    def __init__(
        self, base_url: str, *, token: str | None = None, refresh_token: str | None = None, timeout: float = 60.0
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.refresh_token = refresh_token
        self.timeout = timeout

    @property
    def client(self) -> AuthenticatedClient | Client:
        """The generated client, with the current access token or API key."""
        url = self.base_url + API_PREFIX
        timeout = httpx.Timeout(self.timeout)
        if self.token:
            return AuthenticatedClient(base_url=url, token=self.token, timeout=timeout)
        return Client(base_url=url, timeout=timeout)

    def _tokens(self, parsed: Any) -> None:
        self.token = parsed.access_token
        self.refresh_token = parsed.refresh_token

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    @staticmethod
    def _result(response: Any) -> Any:
        if response.status_code >= 400:
            raise error_from(int(response.status_code), response.content, response.headers)
        return response.parsed

    @staticmethod
    def _last_page(page: Any) -> bool:
        """Whether a page of a list is its last (by its ``total``, ``page`` and ``per_page``)."""
        return page.page * page.per_page >= page.total


class AgentPlatform(_Base):
    """A synchronous client; ``AsyncAgentPlatform`` is the same with ``await``."""

    def register(self, email: str, password: str, *, full_name: str | None = None, company: str | None = None) -> Any:
        body = PostAuthRegisterBody(
            email=email, password=password, full_name=full_name or UNSET, company=company or UNSET
        )
        return self._result(post_auth_register.sync_detailed(client=self.client, body=body))

    def login(self, email: str, password: str) -> Any:
        body = PostAuthLoginBody(username=email, password=password)
        tokens = self._result(post_auth_login.sync_detailed(client=self.client, body=body))
        self._tokens(tokens)
        return tokens

    def refresh(self) -> None:
        """A new access token from the refresh token (each refresh token is used once)."""
        if not self.refresh_token:
            raise AuthenticationError(401, "unauthorized", "No refresh token: log in first")
        body = PostAuthRefreshBody(refresh_token=self.refresh_token)
        self._tokens(self._result(post_auth_refresh.sync_detailed(client=Client(base_url=self.base_url + API_PREFIX), body=body)))

    def call(self, operation: ModuleType, **kwargs: Any) -> Any:
        """Runs a generated operation; an expired access token is refreshed once and the call retried."""
        response = operation.sync_detailed(client=self.client, **kwargs)
        if response.status_code == 401 and self.refresh_token:
            self.refresh()
            response = operation.sync_detailed(client=self.client, **kwargs)
        return self._result(response)

    def paginate(self, operation: ModuleType, items: str, *, per_page: int = 100, **kwargs: Any) -> Iterator[Any]:
        """Every item of a paged list (``items`` names the list's field, e.g. ``"agents"``)."""
        page_number = 1
        while True:
            page = self.call(operation, page=page_number, per_page=per_page, **kwargs)
            yield from getattr(page, items)
            if not getattr(page, items) or self._last_page(page):
                return
            page_number += 1

    def chat_stream(self, agent_id: str, message: str, *, session_id: str | None = None) -> Iterator[ChatEvent]:
        """A chat turn as server-sent events: ``start``, ``delta`` pieces, ``step``s, ``done`` (the whole answer)."""
        body: dict[str, Any] = {"message": message, **({"session_id": session_id} if session_id else {})}
        for attempt in (1, 2):
            with httpx.stream(
                "POST",
                f"{self.base_url}{API_PREFIX}/agents/{agent_id}/chat",
                json=body,
                headers={**self._headers(), "Accept": "text/event-stream"},
                timeout=self.timeout,
            ) as response:
                if response.status_code == 401 and self.refresh_token and attempt == 1:
                    self.refresh()
                    continue
                if response.status_code >= 400:
                    raise error_from(response.status_code, response.read(), response.headers)
                parser = _SseParser()
                for line in response.iter_lines():
                    event = parser.feed(line)
                    if event:
                        yield event
                return


class AsyncAgentPlatform(_Base):
    """The asynchronous client: the same methods as ``AgentPlatform``, awaited."""

    async def register(
        self, email: str, password: str, *, full_name: str | None = None, company: str | None = None
    ) -> Any:
        body = PostAuthRegisterBody(
            email=email, password=password, full_name=full_name or UNSET, company=company or UNSET
        )
        return self._result(await post_auth_register.asyncio_detailed(client=self.client, body=body))

    async def login(self, email: str, password: str) -> Any:
        body = PostAuthLoginBody(username=email, password=password)
        tokens = self._result(await post_auth_login.asyncio_detailed(client=self.client, body=body))
        self._tokens(tokens)
        return tokens

    async def refresh(self) -> None:
        if not self.refresh_token:
            raise AuthenticationError(401, "unauthorized", "No refresh token: log in first")
        body = PostAuthRefreshBody(refresh_token=self.refresh_token)
        anonymous = Client(base_url=self.base_url + API_PREFIX)
        self._tokens(self._result(await post_auth_refresh.asyncio_detailed(client=anonymous, body=body)))

    async def call(self, operation: ModuleType, **kwargs: Any) -> Any:
        response = await operation.asyncio_detailed(client=self.client, **kwargs)
        if response.status_code == 401 and self.refresh_token:
            await self.refresh()
            response = await operation.asyncio_detailed(client=self.client, **kwargs)
        return self._result(response)

    async def paginate(
        self, operation: ModuleType, items: str, *, per_page: int = 100, **kwargs: Any
    ) -> AsyncIterator[Any]:
        page_number = 1
        while True:
            page = await self.call(operation, page=page_number, per_page=per_page, **kwargs)
            for item in getattr(page, items):
                yield item
            if not getattr(page, items) or self._last_page(page):
                return
            page_number += 1

    async def chat_stream(
        self, agent_id: str, message: str, *, session_id: str | None = None
    ) -> AsyncIterator[ChatEvent]:
        body: dict[str, Any] = {"message": message, **({"session_id": session_id} if session_id else {})}
        async with httpx.AsyncClient(timeout=self.timeout) as http:
            for attempt in (1, 2):
                async with http.stream(
                    "POST",
                    f"{self.base_url}{API_PREFIX}/agents/{agent_id}/chat",
                    json=body,
                    headers={**self._headers(), "Accept": "text/event-stream"},
                ) as response:
                    if response.status_code == 401 and self.refresh_token and attempt == 1:
                        await self.refresh()
                        continue
                    if response.status_code >= 400:
                        raise error_from(response.status_code, await response.aread(), response.headers)
                    parser = _SseParser()
                    async for line in response.aiter_lines():
                        event = parser.feed(line)
                        if event:
                            yield event
                    return


__all__ = ["AgentPlatform", "AsyncAgentPlatform", "ApiError", "ChatEvent"]
