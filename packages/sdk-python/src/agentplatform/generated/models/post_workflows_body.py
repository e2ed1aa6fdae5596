from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.post_workflows_body_edges_item import PostWorkflowsBodyEdgesItem
  from ..models.post_workflows_body_nodes_item import PostWorkflowsBodyNodesItem





T = TypeVar("T", bound="PostWorkflowsBody")



@_attrs_define
class PostWorkflowsBody:
    """ 
        Attributes:
            name (str):
            nodes (list[PostWorkflowsBodyNodesItem]):
            description (str | Unset):  Default: ''.
            edges (list[PostWorkflowsBodyEdgesItem] | Unset):
     """

    name: str
    nodes: list[PostWorkflowsBodyNodesItem]
    description: str | Unset = ''
    edges: list[PostWorkflowsBodyEdgesItem] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.post_workflows_body_edges_item import PostWorkflowsBodyEdgesItem # noqa: PLC0415
        from ..models.post_workflows_body_nodes_item import PostWorkflowsBodyNodesItem # noqa: PLC0415
        name = self.name

        nodes = []
        for nodes_item_data in self.nodes:
            nodes_item = nodes_item_data.to_dict()
            nodes.append(nodes_item)



        description = self.description

        edges: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.edges, Unset):
            edges = []
            for edges_item_data in self.edges:
                edges_item = edges_item_data.to_dict()
                edges.append(edges_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "name": name,
            "nodes": nodes,
        })
        if description is not UNSET:
            field_dict["description"] = description
        if edges is not UNSET:
            field_dict["edges"] = edges

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.post_workflows_body_edges_item import PostWorkflowsBodyEdgesItem # noqa: PLC0415
        from ..models.post_workflows_body_nodes_item import PostWorkflowsBodyNodesItem # noqa: PLC0415
        d = dict(src_dict)
        name = d.pop("name")

        nodes = []
        _nodes = d.pop("nodes")
        for nodes_item_data in (_nodes):
            nodes_item = PostWorkflowsBodyNodesItem.from_dict(nodes_item_data)



            nodes.append(nodes_item)


        description = d.pop("description", UNSET)

        _edges = d.pop("edges", UNSET)
        edges: list[PostWorkflowsBodyEdgesItem] | Unset = UNSET
        if _edges is not UNSET:
            edges = []
            for edges_item_data in _edges:
                edges_item = PostWorkflowsBodyEdgesItem.from_dict(edges_item_data)



                edges.append(edges_item)


        post_workflows_body = cls(
            name=name,
            nodes=nodes,
            description=description,
            edges=edges,
        )


        post_workflows_body.additional_properties = d
        return post_workflows_body

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
