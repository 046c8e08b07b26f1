"""The registry ``/metrics`` serves, and the Metrics tab's cheaper read of the same values.

``/metrics`` reads every family of every workspace. The tab samples a few families of one
workspace every 10 s per running scheduler, and reading everything each time costs a busy
machine a good part of a second (docs/metrics.md, "The Metrics tab"): ``exported_families``
reads the same sources, but only the series it is asked for, and adds them up across
processes exactly as prometheus-client's ``MultiProcessCollector`` does.
"""

from __future__ import annotations

import glob
import json
import os
from collections.abc import Collection, Iterable

from django.conf import settings
from prometheus_client import REGISTRY, CollectorRegistry
from prometheus_client.metrics_core import Metric
from prometheus_client.mmap_dict import MmapedDict
from prometheus_client.multiprocess import MultiProcessCollector

from playground.metrics.families import WORKSPACE


def exported_registry() -> CollectorRegistry:
    """All processes' values when PROMETHEUS_MULTIPROC_DIR is set, else this process's."""
    directory = settings.PROMETHEUS_MULTIPROC_DIR
    if not directory:
        return REGISTRY
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=directory)
    return registry


def exported_families(names: Collection[str], workspace: str) -> Iterable[Metric]:
    """The samples named ``names`` (``..._total``, ``..._bucket``, ``..._sum``, a gauge's
    name) of one workspace, with the values ``exported_registry()`` gives them."""
    directory = settings.PROMETHEUS_MULTIPROC_DIR
    if directory:
        return _multiprocess_families(directory, set(names), workspace)
    families = REGISTRY.restricted_registry(names).collect()
    return [_of_workspace(family, workspace) for family in families]


def _of_workspace(family: Metric, workspace: str) -> Metric:
    family.samples = [s for s in family.samples if s.labels.get(WORKSPACE) == workspace]
    return family


def _multiprocess_families(directory: str, names: set[str], workspace: str) -> Iterable[Metric]:
    """prometheus-client's multiprocess read (pinned 0.26.0: its files' names and keys, its
    ``_accumulate_metrics``) limited to the workspace's entries, told apart by their key's
    text before the key is parsed: the parsing is most of the cost of a full read."""
    marker = json.dumps({WORKSPACE: workspace})[1:-1]
    metrics: dict[str, Metric] = {}
    for path in glob.glob(os.path.join(directory, "*.db")):
        kind, *rest = os.path.basename(path).split("_")
        try:
            entries = MmapedDict.read_all_values_from_file(path)
        except FileNotFoundError:
            if kind == "gauge" and rest[0].startswith("live"):
                continue  # a process that ended dropped its live gauges since the glob
            raise
        for key, value, timestamp, _ in entries:
            if marker not in key:
                continue
            family, name, labels, help_text = json.loads(key)
            if name not in names or labels.get(WORKSPACE) != workspace:
                continue
            metric = metrics.setdefault(family, Metric(family, help_text, kind))
            labels_key = tuple(sorted(labels.items()))
            if kind == "gauge":
                metric._multiprocess_mode = rest[0]
                metric.add_sample(name, (*labels_key, ("pid", rest[1][:-3])), value, timestamp)
            else:
                metric.add_sample(name, labels_key, value)
    return MultiProcessCollector._accumulate_metrics(metrics, accumulate=True)
