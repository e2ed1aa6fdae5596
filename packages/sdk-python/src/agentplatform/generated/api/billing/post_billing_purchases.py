from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error import Error
from ...models.post_billing_purchases_body import PostBillingPurchasesBody
from ...models.post_billing_purchases_response_201 import PostBillingPurchasesResponse201
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    body: PostBillingPurchasesBody,
    tenant_id: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key



    

    params: dict[str, Any] = {}

    params["tenant_id"] = tenant_id


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/billing/purchases",
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Error | PostBillingPurchasesResponse201 | None:
    if response.status_code == 201:
        response_201 = PostBillingPurchasesResponse201.from_dict(response.json())



        return response_201

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Error | PostBillingPurchasesResponse201]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: PostBillingPurchasesBody,
    tenant_id: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,

) -> Response[Error | PostBillingPurchasesResponse201]:
    """ Buy credits (tenant owner only, in self-service mode: else 403); fires billing.purchase.completed

    Args:
        tenant_id (str | Unset):
        idempotency_key (str | Unset):
        body (PostBillingPurchasesBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | PostBillingPurchasesResponse201]
     """


    kwargs = _get_kwargs(
        body=body,
tenant_id=tenant_id,
idempotency_key=idempotency_key,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    body: PostBillingPurchasesBody,
    tenant_id: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,

) -> Error | PostBillingPurchasesResponse201 | None:
    """ Buy credits (tenant owner only, in self-service mode: else 403); fires billing.purchase.completed

    Args:
        tenant_id (str | Unset):
        idempotency_key (str | Unset):
        body (PostBillingPurchasesBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | PostBillingPurchasesResponse201
     """


    return sync_detailed(
        client=client,
body=body,
tenant_id=tenant_id,
idempotency_key=idempotency_key,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: PostBillingPurchasesBody,
    tenant_id: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,

) -> Response[Error | PostBillingPurchasesResponse201]:
    """ Buy credits (tenant owner only, in self-service mode: else 403); fires billing.purchase.completed

    Args:
        tenant_id (str | Unset):
        idempotency_key (str | Unset):
        body (PostBillingPurchasesBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | PostBillingPurchasesResponse201]
     """


    kwargs = _get_kwargs(
        body=body,
tenant_id=tenant_id,
idempotency_key=idempotency_key,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    body: PostBillingPurchasesBody,
    tenant_id: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,

) -> Error | PostBillingPurchasesResponse201 | None:
    """ Buy credits (tenant owner only, in self-service mode: else 403); fires billing.purchase.completed

    Args:
        tenant_id (str | Unset):
        idempotency_key (str | Unset):
        body (PostBillingPurchasesBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | PostBillingPurchasesResponse201
     """


    return (await asyncio_detailed(
        client=client,
body=body,
tenant_id=tenant_id,
idempotency_key=idempotency_key,

    )).parsed
