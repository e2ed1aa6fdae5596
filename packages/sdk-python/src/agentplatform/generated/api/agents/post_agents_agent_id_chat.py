from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error import Error
from ...models.post_agents_agent_id_chat_body import PostAgentsAgentIdChatBody
from ...models.post_agents_agent_id_chat_response_200 import PostAgentsAgentIdChatResponse200
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    agent_id: str,
    *,
    body: PostAgentsAgentIdChatBody,
    tenant_id: str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    params: dict[str, Any] = {}

    params["tenant_id"] = tenant_id


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/agents/{agent_id}/chat".format(agent_id=quote(str(agent_id), safe=""),),
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Error | PostAgentsAgentIdChatResponse200 | None:
    if response.status_code == 200:
        response_200 = PostAgentsAgentIdChatResponse200.from_dict(response.json())



        return response_200

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())



        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())



        return response_401

    if response.status_code == 402:
        response_402 = Error.from_dict(response.json())



        return response_402

    if response.status_code == 403:
        response_403 = Error.from_dict(response.json())



        return response_403

    if response.status_code == 404:
        response_404 = Error.from_dict(response.json())



        return response_404

    if response.status_code == 409:
        response_409 = Error.from_dict(response.json())



        return response_409

    if response.status_code == 413:
        response_413 = Error.from_dict(response.json())



        return response_413

    if response.status_code == 415:
        response_415 = Error.from_dict(response.json())



        return response_415

    if response.status_code == 429:
        response_429 = Error.from_dict(response.json())



        return response_429

    if response.status_code == 503:
        response_503 = Error.from_dict(response.json())



        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Error | PostAgentsAgentIdChatResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    agent_id: str,
    *,
    client: AuthenticatedClient,
    body: PostAgentsAgentIdChatBody,
    tenant_id: str | Unset = UNSET,

) -> Response[Error | PostAgentsAgentIdChatResponse200]:
    """ Chat with an agent (credits: ceil(total_tokens/1000), at least 1); JSON, or server-sent events with
    Accept: text/event-stream

    Args:
        agent_id (str):
        tenant_id (str | Unset):
        body (PostAgentsAgentIdChatBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | PostAgentsAgentIdChatResponse200]
     """


    kwargs = _get_kwargs(
        agent_id=agent_id,
body=body,
tenant_id=tenant_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    agent_id: str,
    *,
    client: AuthenticatedClient,
    body: PostAgentsAgentIdChatBody,
    tenant_id: str | Unset = UNSET,

) -> Error | PostAgentsAgentIdChatResponse200 | None:
    """ Chat with an agent (credits: ceil(total_tokens/1000), at least 1); JSON, or server-sent events with
    Accept: text/event-stream

    Args:
        agent_id (str):
        tenant_id (str | Unset):
        body (PostAgentsAgentIdChatBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | PostAgentsAgentIdChatResponse200
     """


    return sync_detailed(
        agent_id=agent_id,
client=client,
body=body,
tenant_id=tenant_id,

    ).parsed

async def asyncio_detailed(
    agent_id: str,
    *,
    client: AuthenticatedClient,
    body: PostAgentsAgentIdChatBody,
    tenant_id: str | Unset = UNSET,

) -> Response[Error | PostAgentsAgentIdChatResponse200]:
    """ Chat with an agent (credits: ceil(total_tokens/1000), at least 1); JSON, or server-sent events with
    Accept: text/event-stream

    Args:
        agent_id (str):
        tenant_id (str | Unset):
        body (PostAgentsAgentIdChatBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | PostAgentsAgentIdChatResponse200]
     """


    kwargs = _get_kwargs(
        agent_id=agent_id,
body=body,
tenant_id=tenant_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    agent_id: str,
    *,
    client: AuthenticatedClient,
    body: PostAgentsAgentIdChatBody,
    tenant_id: str | Unset = UNSET,

) -> Error | PostAgentsAgentIdChatResponse200 | None:
    """ Chat with an agent (credits: ceil(total_tokens/1000), at least 1); JSON, or server-sent events with
    Accept: text/event-stream

    Args:
        agent_id (str):
        tenant_id (str | Unset):
        body (PostAgentsAgentIdChatBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | PostAgentsAgentIdChatResponse200
     """


    return (await asyncio_detailed(
        agent_id=agent_id,
client=client,
body=body,
tenant_id=tenant_id,

    )).parsed
