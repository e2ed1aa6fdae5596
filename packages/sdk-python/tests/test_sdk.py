"""The Python SDK against the real platform: auth, agents, memory, chat, workflows, webhooks,
paging and errors (issue 37)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from agentplatform import (
    AgentPlatform,
    AsyncAgentPlatform,
    AuthenticationError,
    NotFoundError,
    ValidationError,
    WebhookSignatureError,
    verify_webhook,
)
from agentplatform.generated.api.agents import get_agents, get_agents_agent_id, post_agents
from agentplatform.generated.api.auth import get_auth_me
from agentplatform.generated.api.memory import post_memory, post_memory_search
from agentplatform.generated.api.webhooks import post_webhooks
from agentplatform.generated.api.workflows import post_workflows, post_workflows_workflow_id_execute
from agentplatform.generated.models import (
    PostAgentsBody,
    PostMemoryBody,
    PostMemorySearchBody,
    PostWebhooksBody,
    PostWorkflowsBody,
    PostWorkflowsWorkflowIdExecuteBody,
)


def new_agent(api: AgentPlatform, name: str = "Helper") -> str:
    return api.call(post_agents, body=PostAgentsBody.from_dict({"name": name, "type": "assistant"})).id


def test_register_log_in_and_refresh_an_expired_token(api: AgentPlatform, account: dict) -> None:
    assert api.call(get_auth_me).email == account["email"]
    # A token that no longer works is replaced through the refresh token, and the call retried.
    api.token = "expired"
    assert api.call(get_auth_me).email == account["email"]
    assert api.token != "expired"


def test_errors_are_typed_exceptions(api: AgentPlatform, base_url: str, account: dict) -> None:
    with pytest.raises(AuthenticationError) as wrong:
        AgentPlatform(base_url).login(account["email"], "not the password")
    assert wrong.value.status == 401 and wrong.value.code == "unauthorized"
    with pytest.raises(NotFoundError) as missing:
        api.call(get_agents_agent_id, agent_id="agt_missing")
    assert missing.value.code == "not_found"
    with pytest.raises(ValidationError) as invalid:
        api.call(post_agents, body=PostAgentsBody.from_dict({"name": "", "type": "assistant"}))
    assert invalid.value.status == 400 and invalid.value.detail("name") is not None


def test_memory_added_and_searched_is_used_in_a_streamed_chat(api: AgentPlatform) -> None:
    agent_id = new_agent(api)
    api.call(post_memory, body=PostMemoryBody.from_dict({"agent_id": agent_id, "content": "The gate code is 4711"}))
    found = api.call(post_memory_search, body=PostMemorySearchBody.from_dict({"agent_id": agent_id, "query": "gate code"}))
    assert [r.content for r in found.results] == ["The gate code is 4711"]

    events = list(api.chat_stream(agent_id, "What is the gate code?"))
    assert events[0].event == "start" and events[-1].event == "done"
    pieces = "".join(e.data["content"] for e in events if e.event == "delta")
    assert "4711" in pieces
    assert events[-1].data["content"] == pieces
    assert events[-1].data["credits_used"] >= 1


def test_the_async_client_chats_and_pages(base_url: str, account: dict) -> None:
    async def scenario() -> None:
        client = AsyncAgentPlatform(base_url)
        await client.register(account["email"], account["password"])
        await client.login(account["email"], account["password"])
        agent = await client.call(post_agents, body=PostAgentsBody.from_dict({"name": "Async", "type": "assistant"}))
        events = [e async for e in client.chat_stream(agent.id, "Hello")]
        assert [events[0].event, events[-1].event] == ["start", "done"]
        names = [a.name async for a in client.paginate(get_agents, "agents", per_page=1)]
        assert names == ["Async"]

    asyncio.run(scenario())


def test_a_workflow_is_created_and_executed(api: AgentPlatform) -> None:
    workflow = api.call(
        post_workflows,
        body=PostWorkflowsBody.from_dict(
            {
                "name": "Triage",
                "nodes": [
                    {"id": "start", "type": "webhook", "config": {}},
                    {"id": "route", "type": "transform", "config": {"fields": {"route": "'pager'"}}},
                ],
                "edges": [{"source": "start", "target": "route"}],
            }
        ),
    )
    execution = api.call(
        post_workflows_workflow_id_execute,
        workflow_id=workflow.id,
        body=PostWorkflowsWorkflowIdExecuteBody.from_dict({"input": {"priority": "high"}}),
    )
    assert execution.status == "completed"
    assert execution.output["route"] == "pager"


def test_pages_through_a_list(api: AgentPlatform) -> None:
    made = {new_agent(api, f"Agent {i}") for i in range(5)}
    seen = [a.id for a in api.paginate(get_agents, "agents", per_page=2)]
    assert len(seen) == 5 and set(seen) == made


def test_a_received_webhook_delivery_is_verified(api: AgentPlatform) -> None:
    received: list[tuple[bytes, dict[str, str]]] = []

    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            body = self.rfile.read(int(self.headers["Content-Length"]))
            received.append((body, dict(self.headers.items())))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/hooks"
        webhook = api.call(post_webhooks, body=PostWebhooksBody.from_dict({"url": url, "events": ["agent.created"]}))
        agent_id = new_agent(api, "Watched")
        deadline = time.time() + 30
        while not received and time.time() < deadline:
            time.sleep(0.2)
        assert received, "no delivery within 30 s"
        body, headers = received[0]
        assert json.loads(body)["data"]["agent_id"] == agent_id
        verify_webhook(body, headers, webhook.signing_secret)
        with pytest.raises(WebhookSignatureError):
            verify_webhook(body + b" ", headers, webhook.signing_secret)
        with pytest.raises(WebhookSignatureError):
            verify_webhook(body, headers, webhook.signing_secret, now=time.time() + 3600)
    finally:
        server.shutdown()
