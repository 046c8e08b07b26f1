"""Configurations the real kube-scheduler v1.36.2 refuses at start-up, with its lines.

Shared by the tests of ``framework.config.startup``, ``config validate``, ``simulate`` and the
playground's profile editor, which must all refuse them alike.
"""

from __future__ import annotations

HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
PROFILE = "profiles:\n- schedulerName: default-scheduler\n"
CREATING = "initializing profiles: creating profile for scheduler name default-scheduler: "

REFUSALS: list[tuple[str, str, list[str]]] = [
    (
        "an unknown plugin",
        PROFILE + "  plugins:\n    filter:\n      enabled:\n      - name: NoSuchPlugin\n",
        [CREATING + 'FilterPlugin "NoSuchPlugin" does not exist'],
    ),
    (
        "a profile without a bind plugin",
        PROFILE + "  plugins:\n    bind:\n      disabled:\n      - name: '*'\n",
        [
            CREATING + "at least one bind plugin is needed for profile with scheduler name "
            '"default-scheduler"'
        ],
    ),
    (
        "a scoring strategy NodeResourcesFit does not know",
        PROFILE + "  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n"
        "      scoringStrategy:\n        type: Foo\n",
        [
            CREATING + 'initializing plugin "NodeResourcesFit": scoringStrategy.type: '
            'Unsupported value: "Foo": supported values: "LeastAllocated", "MostAllocated", '
            '"RequestedToCapacityRatio"'
        ],
    ),
    (
        "RequestedToCapacityRatio without its shape",
        PROFILE + "  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n"
        "      scoringStrategy:\n        type: RequestedToCapacityRatio\n",
        [
            CREATING + 'initializing plugin "NodeResourcesFit": '
            "scoringStrategy.requestedToCapacityRatio: Required value: must be specified when "
            "type is RequestedToCapacityRatio"
        ],
    ),
    (
        "a plugin at a point it does not implement",
        PROFILE + "  plugins:\n    filter:\n      enabled:\n      - name: PrioritySort\n",
        [CREATING + 'plugin "PrioritySort" does not extend FilterPlugin plugin'],
    ),
]
