from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.post_workflows_workflow_id_hook_rotate_response_200_status import PostWorkflowsWorkflowIdHookRotateResponse200Status
from ..models.post_workflows_workflow_id_hook_rotate_response_200_trigger_type import PostWorkflowsWorkflowIdHookRotateResponse200TriggerType
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.post_workflows_workflow_id_hook_rotate_response_200_edges_item import PostWorkflowsWorkflowIdHookRotateResponse200EdgesItem
  from ..models.post_workflows_workflow_id_hook_rotate_response_200_nodes_item import PostWorkflowsWorkflowIdHookRotateResponse200NodesItem
  from ..models.post_workflows_workflow_id_hook_rotate_response_200_statistics import PostWorkflowsWorkflowIdHookRotateResponse200Statistics





T = TypeVar("T", bound="PostWorkflowsWorkflowIdHookRotateResponse200")



@_attrs_define
class PostWorkflowsWorkflowIdHookRotateResponse200:
    """ 
        Attributes:
            id (str):
            name (str):
            description (str):
            status (PostWorkflowsWorkflowIdHookRotateResponse200Status):
            trigger_type (PostWorkflowsWorkflowIdHookRotateResponse200TriggerType):
            nodes (list[PostWorkflowsWorkflowIdHookRotateResponse200NodesItem]):
            edges (list[PostWorkflowsWorkflowIdHookRotateResponse200EdgesItem]):
            webhook_url (None | str): the secret hook URL; null for callers without workflows:execute (it starts runs)
            last_run_at (None | str):
            next_run_at (None | str): the next schedule tick; null unless the workflow is active and scheduled
            created_at (str):
            updated_at (str):
            version (int): bumped by every change of nodes, edges, name or description; 1 on create
            statistics (PostWorkflowsWorkflowIdHookRotateResponse200Statistics | Unset): get only
     """

    id: str
    name: str
    description: str
    status: PostWorkflowsWorkflowIdHookRotateResponse200Status
    trigger_type: PostWorkflowsWorkflowIdHookRotateResponse200TriggerType
    nodes: list[PostWorkflowsWorkflowIdHookRotateResponse200NodesItem]
    edges: list[PostWorkflowsWorkflowIdHookRotateResponse200EdgesItem]
    webhook_url: None | str
    last_run_at: None | str
    next_run_at: None | str
    created_at: str
    updated_at: str
    version: int
    statistics: PostWorkflowsWorkflowIdHookRotateResponse200Statistics | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.post_workflows_workflow_id_hook_rotate_response_200_edges_item import PostWorkflowsWorkflowIdHookRotateResponse200EdgesItem # noqa: PLC0415
        from ..models.post_workflows_workflow_id_hook_rotate_response_200_nodes_item import PostWorkflowsWorkflowIdHookRotateResponse200NodesItem # noqa: PLC0415
        from ..models.post_workflows_workflow_id_hook_rotate_response_200_statistics import PostWorkflowsWorkflowIdHookRotateResponse200Statistics # noqa: PLC0415
        id = self.id

        name = self.name

        description = self.description

        status = self.status.value

        trigger_type = self.trigger_type.value

        nodes = []
        for nodes_item_data in self.nodes:
            nodes_item = nodes_item_data.to_dict()
            nodes.append(nodes_item)



        edges = []
        for edges_item_data in self.edges:
            edges_item = edges_item_data.to_dict()
            edges.append(edges_item)



        webhook_url: None | str
        webhook_url = self.webhook_url

        last_run_at: None | str
        last_run_at = self.last_run_at

        next_run_at: None | str
        next_run_at = self.next_run_at

        created_at = self.created_at

        updated_at = self.updated_at

        version = self.version

        statistics: dict[str, Any] | Unset = UNSET
        if not isinstance(self.statistics, Unset):
            statistics = self.statistics.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "name": name,
            "description": description,
            "status": status,
            "trigger_type": trigger_type,
            "nodes": nodes,
            "edges": edges,
            "webhook_url": webhook_url,
            "last_run_at": last_run_at,
            "next_run_at": next_run_at,
            "created_at": created_at,
            "updated_at": updated_at,
            "version": version,
        })
        if statistics is not UNSET:
            field_dict["statistics"] = statistics

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.post_workflows_workflow_id_hook_rotate_response_200_edges_item import PostWorkflowsWorkflowIdHookRotateResponse200EdgesItem # noqa: PLC0415
        from ..models.post_workflows_workflow_id_hook_rotate_response_200_nodes_item import PostWorkflowsWorkflowIdHookRotateResponse200NodesItem # noqa: PLC0415
        from ..models.post_workflows_workflow_id_hook_rotate_response_200_statistics import PostWorkflowsWorkflowIdHookRotateResponse200Statistics # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        description = d.pop("description")

        status = PostWorkflowsWorkflowIdHookRotateResponse200Status(d.pop("status"))




        trigger_type = PostWorkflowsWorkflowIdHookRotateResponse200TriggerType(d.pop("trigger_type"))




        nodes = []
        _nodes = d.pop("nodes")
        for nodes_item_data in (_nodes):
            nodes_item = PostWorkflowsWorkflowIdHookRotateResponse200NodesItem.from_dict(nodes_item_data)



            nodes.append(nodes_item)


        edges = []
        _edges = d.pop("edges")
        for edges_item_data in (_edges):
            edges_item = PostWorkflowsWorkflowIdHookRotateResponse200EdgesItem.from_dict(edges_item_data)



            edges.append(edges_item)


        def _parse_webhook_url(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        webhook_url = _parse_webhook_url(d.pop("webhook_url"))


        def _parse_last_run_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_run_at = _parse_last_run_at(d.pop("last_run_at"))


        def _parse_next_run_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        next_run_at = _parse_next_run_at(d.pop("next_run_at"))


        created_at = d.pop("created_at")

        updated_at = d.pop("updated_at")

        version = d.pop("version")

        _statistics = d.pop("statistics", UNSET)
        statistics: PostWorkflowsWorkflowIdHookRotateResponse200Statistics | Unset
        if isinstance(_statistics,  Unset):
            statistics = UNSET
        else:
            statistics = PostWorkflowsWorkflowIdHookRotateResponse200Statistics.from_dict(_statistics)




        post_workflows_workflow_id_hook_rotate_response_200 = cls(
            id=id,
            name=name,
            description=description,
            status=status,
            trigger_type=trigger_type,
            nodes=nodes,
            edges=edges,
            webhook_url=webhook_url,
            last_run_at=last_run_at,
            next_run_at=next_run_at,
            created_at=created_at,
            updated_at=updated_at,
            version=version,
            statistics=statistics,
        )

        return post_workflows_workflow_id_hook_rotate_response_200

