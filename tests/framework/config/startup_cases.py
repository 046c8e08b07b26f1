"""Configurations the real kube-scheduler v1.36.2 refuses at start-up, with its lines, and
some it starts with that look as if it should not.

Each was run through ``kube-scheduler --config`` (v1.36.2, against a real kube-apiserver).

Shared by the tests of ``framework.config.startup``, ``config validate``, ``simulate`` and the
playground's profile editor, which must all refuse them alike.
"""

from __future__ import annotations

HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
PROFILE = "profiles:\n- schedulerName: default-scheduler\n"
CREATING = "initializing profiles: creating profile for scheduler name default-scheduler: "
OVERFLOW = CREATING + "score plugins: total score of Score plugins could overflow"

# Score plugins alone, so that the order of the weights is the file's: multiPoint's defaults off.
ONLY_SCORE = (
    PROFILE + "  plugins:\n    multiPoint:\n      disabled:\n      - name: '*'\n"
    "    queueSort:\n      enabled:\n      - name: PrioritySort\n"
    "    bind:\n      enabled:\n      - name: DefaultBinder\n"
    "    score:\n      enabled:\n"
)

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
    # NewFramework sums the weights (x MaxNodeScore) in Go's int64: after a negative weight
    # MaxTotalScore - total wraps around, and the next score plugin counts as an overflow.
    (
        "a negative weight on a Score plugin (the default ones follow it)",
        PROFILE + "  plugins:\n    score:\n      enabled:\n"
        "      - name: NodeResourcesFit\n        weight: -1\n",
        [OVERFLOW],
    ),
    (
        "a negative weight on the first of multiPoint's score plugins",
        PROFILE + "  plugins:\n    multiPoint:\n      enabled:\n"
        "      - name: TaintToleration\n        weight: -1\n",
        [OVERFLOW],
    ),
    (
        "a negative weight on a Score plugin disabled at score but still in multiPoint",
        PROFILE + "  plugins:\n    score:\n      disabled:\n      - name: '*'\n      enabled:\n"
        "      - name: ImageLocality\n        weight: -1\n",
        [OVERFLOW],
    ),
    (
        "a negative weight followed by another score plugin",
        ONLY_SCORE
        + "      - name: NodeResourcesFit\n        weight: -1\n      - name: ImageLocality\n",
        [OVERFLOW],
    ),
    (
        "a negative weight that takes the sum below zero before other score plugins",
        PROFILE + "  plugins:\n    multiPoint:\n      enabled:\n"
        "      - name: NodeAffinity\n        weight: -4\n",
        [OVERFLOW],
    ),
]

ACCEPTED: list[tuple[str, str]] = [
    # What the real kube-scheduler v1.36.2 starts with although it looks as wrong: a negative
    # weight on the last score plugin of the list, or one that leaves the sum at zero or more,
    # never makes a later check wrap around.
    (
        "a negative weight on the last of multiPoint's score plugins",
        PROFILE + "  plugins:\n    multiPoint:\n      enabled:\n"
        "      - name: ImageLocality\n        weight: -1\n",
    ),
    (
        "the smallest int32 weight on the last score plugin",
        PROFILE + "  plugins:\n    multiPoint:\n      enabled:\n"
        "      - name: ImageLocality\n        weight: -2147483648\n",
    ),
    (
        "a negative weight on the only score plugin",
        ONLY_SCORE + "      - name: NodeResourcesFit\n        weight: -1\n",
    ),
    (
        "a negative weight that leaves the sum of the weights before it at zero",
        PROFILE + "  plugins:\n    multiPoint:\n      enabled:\n"
        "      - name: NodeAffinity\n        weight: -3\n",
    ),
    (
        "a negative weight smaller than the weights before it",
        ONLY_SCORE + "      - name: ImageLocality\n        weight: 5\n"
        "      - name: NodeResourcesFit\n        weight: -1\n      - name: TaintToleration\n",
    ),
    (
        "a negative weight after the other score plugins",
        ONLY_SCORE
        + "      - name: ImageLocality\n      - name: NodeResourcesFit\n        weight: -1\n",
    ),
]
