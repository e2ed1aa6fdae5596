from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error import Error
from ...models.patch_agents_agent_id_body import PatchAgentsAgentIdBody
from ...models.patch_agents_agent_id_response_200 import PatchAgentsAgentIdResponse200
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    agent_id: str,
    *,
    body: PatchAgentsAgentIdBody,
    tenant_id: str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    params: dict[str, Any] = {}

    params["tenant_id"] = tenant_id


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/agents/{agent_id}".format(agent_id=quote(str(agent_id), safe=""),),
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Error | PatchAgentsAgentIdResponse200 | None:
    if response.status_code == 200:
        response_200 = PatchAgentsAgentIdResponse200.from_dict(response.json())



        return response_200

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())



        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())



        return response_401

    if response.status_code == 403:
        response_403 = Error.from_dict(response.json())



        return response_403

    if response.status_code == 404:
        response_404 = Error.from_dict(response.json())



        return response_404

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Error | PatchAgentsAgentIdResponse200]:
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
    body: PatchAgentsAgentIdBody,
    tenant_id: str | Unset = UNSET,

) -> Response[Error | PatchAgentsAgentIdResponse200]:
    """ Update an agent (only the fields given; config keys merge, null removes one); fires agent.updated.
    Tool grants need scopes as on create

    Args:
        agent_id (str):
        tenant_id (str | Unset):
        body (PatchAgentsAgentIdBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | PatchAgentsAgentIdResponse200]
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
    body: PatchAgentsAgentIdBody,
    tenant_id: str | Unset = UNSET,

) -> Error | PatchAgentsAgentIdResponse200 | None:
    """ Update an agent (only the fields given; config keys merge, null removes one); fires agent.updated.
    Tool grants need scopes as on create

    Args:
        agent_id (str):
        tenant_id (str | Unset):
        body (PatchAgentsAgentIdBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | PatchAgentsAgentIdResponse200
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
    body: PatchAgentsAgentIdBody,
    tenant_id: str | Unset = UNSET,

) -> Response[Error | PatchAgentsAgentIdResponse200]:
    """ Update an agent (only the fields given; config keys merge, null removes one); fires agent.updated.
    Tool grants need scopes as on create

    Args:
        agent_id (str):
        tenant_id (str | Unset):
        body (PatchAgentsAgentIdBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | PatchAgentsAgentIdResponse200]
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
    body: PatchAgentsAgentIdBody,
    tenant_id: str | Unset = UNSET,

) -> Error | PatchAgentsAgentIdResponse200 | None:
    """ Update an agent (only the fields given; config keys merge, null removes one); fires agent.updated.
    Tool grants need scopes as on create

    Args:
        agent_id (str):
        tenant_id (str | Unset):
        body (PatchAgentsAgentIdBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | PatchAgentsAgentIdResponse200
     """


    return (await asyncio_detailed(
        agent_id=agent_id,
client=client,
body=body,
tenant_id=tenant_id,

    )).parsed
