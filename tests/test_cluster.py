"""tests/cluster.py: the nodes of a test cluster get distinct ports, bus ports included."""

from __future__ import annotations

import pytest

from tests.cluster import cluster_port


def test_a_node_port_is_none_of_the_ports_chosen_before():
    """The ports chosen for a cluster's nodes are free again until the nodes bind them:
    ``cluster_port`` is told them and picks neither one of them nor a bus port of
    theirs (two nodes on one port left the first running after the cluster stopped)."""
    first = cluster_port()
    for _ in range(50):
        assert cluster_port([first]) not in (first, first + 10000, first - 10000)
    with pytest.raises(RuntimeError, match="no free port pair"):
        cluster_port(range(65536))  # every port taken
