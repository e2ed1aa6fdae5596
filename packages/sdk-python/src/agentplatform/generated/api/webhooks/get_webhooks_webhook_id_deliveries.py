from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error import Error
from ...models.get_webhooks_webhook_id_deliveries_response_200 import GetWebhooksWebhookIdDeliveriesResponse200
from ...models.get_webhooks_webhook_id_deliveries_status import GetWebhooksWebhookIdDeliveriesStatus
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    webhook_id: str,
    *,
    limit: int | Unset = 20,
    status: GetWebhooksWebhookIdDeliveriesStatus | Unset = UNSET,
    tenant_id: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["limit"] = limit

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status.value

    params["status"] = json_status

    params["tenant_id"] = tenant_id


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/webhooks/{webhook_id}/deliveries".format(webhook_id=quote(str(webhook_id), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Error | GetWebhooksWebhookIdDeliveriesResponse200 | None:
    if response.status_code == 200:
        response_200 = GetWebhooksWebhookIdDeliveriesResponse200.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Error | GetWebhooksWebhookIdDeliveriesResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    webhook_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 20,
    status: GetWebhooksWebhookIdDeliveriesStatus | Unset = UNSET,
    tenant_id: str | Unset = UNSET,

) -> Response[Error | GetWebhooksWebhookIdDeliveriesResponse200]:
    """ The delivery log, newest first

    Args:
        webhook_id (str):
        limit (int | Unset):  Default: 20.
        status (GetWebhooksWebhookIdDeliveriesStatus | Unset):
        tenant_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | GetWebhooksWebhookIdDeliveriesResponse200]
     """


    kwargs = _get_kwargs(
        webhook_id=webhook_id,
limit=limit,
status=status,
tenant_id=tenant_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    webhook_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 20,
    status: GetWebhooksWebhookIdDeliveriesStatus | Unset = UNSET,
    tenant_id: str | Unset = UNSET,

) -> Error | GetWebhooksWebhookIdDeliveriesResponse200 | None:
    """ The delivery log, newest first

    Args:
        webhook_id (str):
        limit (int | Unset):  Default: 20.
        status (GetWebhooksWebhookIdDeliveriesStatus | Unset):
        tenant_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | GetWebhooksWebhookIdDeliveriesResponse200
     """


    return sync_detailed(
        webhook_id=webhook_id,
client=client,
limit=limit,
status=status,
tenant_id=tenant_id,

    ).parsed

async def asyncio_detailed(
    webhook_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 20,
    status: GetWebhooksWebhookIdDeliveriesStatus | Unset = UNSET,
    tenant_id: str | Unset = UNSET,

) -> Response[Error | GetWebhooksWebhookIdDeliveriesResponse200]:
    """ The delivery log, newest first

    Args:
        webhook_id (str):
        limit (int | Unset):  Default: 20.
        status (GetWebhooksWebhookIdDeliveriesStatus | Unset):
        tenant_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | GetWebhooksWebhookIdDeliveriesResponse200]
     """


    kwargs = _get_kwargs(
        webhook_id=webhook_id,
limit=limit,
status=status,
tenant_id=tenant_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    webhook_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 20,
    status: GetWebhooksWebhookIdDeliveriesStatus | Unset = UNSET,
    tenant_id: str | Unset = UNSET,

) -> Error | GetWebhooksWebhookIdDeliveriesResponse200 | None:
    """ The delivery log, newest first

    Args:
        webhook_id (str):
        limit (int | Unset):  Default: 20.
        status (GetWebhooksWebhookIdDeliveriesStatus | Unset):
        tenant_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | GetWebhooksWebhookIdDeliveriesResponse200
     """


    return (await asyncio_detailed(
        webhook_id=webhook_id,
client=client,
limit=limit,
status=status,
tenant_id=tenant_id,

    )).parsed
