from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error import Error
from ...models.post_workflows_workflow_id_executions_execution_id_cancel_response_200 import PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    workflow_id: str,
    execution_id: str,
    *,
    tenant_id: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["tenant_id"] = tenant_id


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/workflows/{workflow_id}/executions/{execution_id}/cancel".format(workflow_id=quote(str(workflow_id), safe=""),execution_id=quote(str(execution_id), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Error | PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200 | None:
    if response.status_code == 200:
        response_200 = PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200.from_dict(response.json())



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

    if response.status_code == 409:
        response_409 = Error.from_dict(response.json())



        return response_409

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Error | PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    workflow_id: str,
    execution_id: str,
    *,
    client: AuthenticatedClient,
    tenant_id: str | Unset = UNSET,

) -> Response[Error | PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200]:
    """ Cancel a running or queued execution (again on a retry; 409 once it has completed or failed)

    Args:
        workflow_id (str):
        execution_id (str):
        tenant_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200]
     """


    kwargs = _get_kwargs(
        workflow_id=workflow_id,
execution_id=execution_id,
tenant_id=tenant_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    workflow_id: str,
    execution_id: str,
    *,
    client: AuthenticatedClient,
    tenant_id: str | Unset = UNSET,

) -> Error | PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200 | None:
    """ Cancel a running or queued execution (again on a retry; 409 once it has completed or failed)

    Args:
        workflow_id (str):
        execution_id (str):
        tenant_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200
     """


    return sync_detailed(
        workflow_id=workflow_id,
execution_id=execution_id,
client=client,
tenant_id=tenant_id,

    ).parsed

async def asyncio_detailed(
    workflow_id: str,
    execution_id: str,
    *,
    client: AuthenticatedClient,
    tenant_id: str | Unset = UNSET,

) -> Response[Error | PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200]:
    """ Cancel a running or queued execution (again on a retry; 409 once it has completed or failed)

    Args:
        workflow_id (str):
        execution_id (str):
        tenant_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200]
     """


    kwargs = _get_kwargs(
        workflow_id=workflow_id,
execution_id=execution_id,
tenant_id=tenant_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    workflow_id: str,
    execution_id: str,
    *,
    client: AuthenticatedClient,
    tenant_id: str | Unset = UNSET,

) -> Error | PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200 | None:
    """ Cancel a running or queued execution (again on a retry; 409 once it has completed or failed)

    Args:
        workflow_id (str):
        execution_id (str):
        tenant_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | PostWorkflowsWorkflowIdExecutionsExecutionIdCancelResponse200
     """


    return (await asyncio_detailed(
        workflow_id=workflow_id,
execution_id=execution_id,
client=client,
tenant_id=tenant_id,

    )).parsed
