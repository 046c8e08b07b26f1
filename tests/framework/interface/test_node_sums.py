"""NodeSums: a kept sum equals the full walk, key order included for ordered queries."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import ClassVar

import pytest

from framework.interface.node_info import NodeInfo
from framework.interface.node_sums import NodeSums, sum_over_nodes


@dataclass(frozen=True)
class TableQuery:
    """Each node's part is whatever the test's table says (several keys, in any order)."""

    name: str
    ordered: ClassVar[bool] = True
    table: dict[int, dict[str, int]] = field(compare=False, hash=False, default_factory=dict)

    def contribution(self, node_info: NodeInfo) -> dict[str, int] | None:
        return self.table.get(id(node_info))


@dataclass(frozen=True)
class UnorderedTableQuery(TableQuery):
    ordered: ClassVar[bool] = False


def random_part(rng: random.Random) -> dict[str, int] | None:
    if rng.random() < 0.3:
        return None
    keys = rng.sample(["a", "b", "c", "d"], rng.randint(0, 3))
    return {key: rng.randint(0, 2) for key in keys}


@pytest.mark.parametrize("query_type", [TableQuery, UnorderedTableQuery])
@pytest.mark.parametrize("seed", range(10))
def test_a_kept_sum_equals_the_walk_as_parts_change(query_type, seed):
    rng = random.Random(seed)
    nodes = [NodeInfo() for _ in range(12)]
    table = {id(n): part for n in nodes if (part := random_part(rng)) is not None}
    query = query_type("q", table)
    sums = NodeSums()
    for _ in range(200):
        for _ in range(rng.randint(0, 3)):
            changed = rng.choice(nodes)
            part = random_part(rng)
            if part is None:
                table.pop(id(changed), None)
            else:
                table[id(changed)] = part
            sums.node_changed(changed)
        got = sums.totals(query, nodes)
        want = sum_over_nodes(query, nodes)
        if query.ordered:
            assert list(got.items()) == list(want.items())
        else:
            assert dict(got) == want


def test_a_new_node_list_starts_the_sum_afresh():
    nodes = [NodeInfo(), NodeInfo()]
    query = TableQuery("q", {id(nodes[0]): {"a": 1}})
    sums = NodeSums()
    assert dict(sums.totals(query, nodes)) == {"a": 1}
    more = [*nodes, NodeInfo()]
    query.table[id(more[2])] = {"a": 2}  # no change logged: the new list is reason enough
    assert dict(sums.totals(query, more)) == {"a": 3}
