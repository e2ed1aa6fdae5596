from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.put_workflows_workflow_id_body_edges_item import PutWorkflowsWorkflowIdBodyEdgesItem
  from ..models.put_workflows_workflow_id_body_nodes_item import PutWorkflowsWorkflowIdBodyNodesItem





T = TypeVar("T", bound="PutWorkflowsWorkflowIdBody")



@_attrs_define
class PutWorkflowsWorkflowIdBody:
    """ 
        Attributes:
            name (str | Unset):
            description (str | Unset):
            nodes (list[PutWorkflowsWorkflowIdBodyNodesItem] | Unset):
            edges (list[PutWorkflowsWorkflowIdBodyEdgesItem] | Unset):
     """

    name: str | Unset = UNSET
    description: str | Unset = UNSET
    nodes: list[PutWorkflowsWorkflowIdBodyNodesItem] | Unset = UNSET
    edges: list[PutWorkflowsWorkflowIdBodyEdgesItem] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.put_workflows_workflow_id_body_edges_item import PutWorkflowsWorkflowIdBodyEdgesItem # noqa: PLC0415
        from ..models.put_workflows_workflow_id_body_nodes_item import PutWorkflowsWorkflowIdBodyNodesItem # noqa: PLC0415
        name = self.name

        description = self.description

        nodes: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.nodes, Unset):
            nodes = []
            for nodes_item_data in self.nodes:
                nodes_item = nodes_item_data.to_dict()
                nodes.append(nodes_item)



        edges: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.edges, Unset):
            edges = []
            for edges_item_data in self.edges:
                edges_item = edges_item_data.to_dict()
                edges.append(edges_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if name is not UNSET:
            field_dict["name"] = name
        if description is not UNSET:
            field_dict["description"] = description
        if nodes is not UNSET:
            field_dict["nodes"] = nodes
        if edges is not UNSET:
            field_dict["edges"] = edges

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.put_workflows_workflow_id_body_edges_item import PutWorkflowsWorkflowIdBodyEdgesItem # noqa: PLC0415
        from ..models.put_workflows_workflow_id_body_nodes_item import PutWorkflowsWorkflowIdBodyNodesItem # noqa: PLC0415
        d = dict(src_dict)
        name = d.pop("name", UNSET)

        description = d.pop("description", UNSET)

        _nodes = d.pop("nodes", UNSET)
        nodes: list[PutWorkflowsWorkflowIdBodyNodesItem] | Unset = UNSET
        if _nodes is not UNSET:
            nodes = []
            for nodes_item_data in _nodes:
                nodes_item = PutWorkflowsWorkflowIdBodyNodesItem.from_dict(nodes_item_data)



                nodes.append(nodes_item)


        _edges = d.pop("edges", UNSET)
        edges: list[PutWorkflowsWorkflowIdBodyEdgesItem] | Unset = UNSET
        if _edges is not UNSET:
            edges = []
            for edges_item_data in _edges:
                edges_item = PutWorkflowsWorkflowIdBodyEdgesItem.from_dict(edges_item_data)



                edges.append(edges_item)


        put_workflows_workflow_id_body = cls(
            name=name,
            description=description,
            nodes=nodes,
            edges=edges,
        )


        put_workflows_workflow_id_body.additional_properties = d
        return put_workflows_workflow_id_body

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
