"""The tests run against a real platform: AGENTPLATFORM_URL is its gateway (sdk-python.e2e.spec.ts
in services/gateway/test starts one and runs pytest with it)."""

import os
import secrets

import pytest

from agentplatform import AgentPlatform


@pytest.fixture(scope="session")
def base_url() -> str:
    url = os.environ.get("AGENTPLATFORM_URL")
    if not url:
        pytest.fail("AGENTPLATFORM_URL must name a running gateway")
    return url


@pytest.fixture()
def account(base_url: str) -> dict:
    """A new user (and tenant) registered through the SDK."""
    return {"email": f"py-{secrets.token_hex(6)}@example.com", "password": f"pw-{secrets.token_hex(8)}"}


@pytest.fixture()
def api(base_url: str, account: dict) -> AgentPlatform:
    client = AgentPlatform(base_url)
    client.register(account["email"], account["password"], full_name="Py Test")
    client.login(account["email"], account["password"])
    return client
