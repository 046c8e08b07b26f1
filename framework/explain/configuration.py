"""Which configuration and profile an explanation runs the pod's plugins with.

Callers hold the configuration in different shapes: the CLI and the playground have the whole
defaulted ``KubeSchedulerConfiguration``, a caller that only knows one profile has a
``KubeSchedulerProfile``, and a quick look needs nothing (kube-scheduler's defaults).
"""

from __future__ import annotations

from typing import Any

from framework.config.defaults import set_defaults
from framework.config.types import KubeSchedulerConfiguration, KubeSchedulerProfile
from framework.features import DEFAULT_FEATURE_GATES, FeatureGates


def resolve_configuration(
    profile: Any, pod: Any, features: FeatureGates = DEFAULT_FEATURE_GATES
) -> tuple[KubeSchedulerConfiguration, str]:
    """The defaulted configuration and the name of the profile that schedules ``pod``.

    ``profile`` is a ``KubeSchedulerConfiguration`` (defaulted), one ``KubeSchedulerProfile``
    or None (the defaults). The pod goes to the profile its ``schedulerName`` names, or to the
    first one, as the what-if does.
    """
    if isinstance(profile, KubeSchedulerConfiguration):
        cfg = profile
    elif isinstance(profile, KubeSchedulerProfile):
        cfg = set_defaults(KubeSchedulerConfiguration(profiles=[profile]), features)
    elif profile is None:
        cfg = set_defaults(KubeSchedulerConfiguration(), features)
    else:
        raise TypeError(
            "profile: want a KubeSchedulerConfiguration, a KubeSchedulerProfile or None, "
            f"not {type(profile).__name__}"
        )
    names = [p.scheduler_name for p in cfg.profiles]
    wanted = pod.spec.scheduler_name
    return cfg, wanted if wanted in names else names[0]
