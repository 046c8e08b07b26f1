"""Preemption shared by PostFilter plugins: candidates, victims, the Evaluator and Executor."""

from framework.preemption.executor import Executor, PodPreemptor
from framework.preemption.preemption import Evaluator, Interface, pick_one_node_for_preemption
from framework.preemption.start_time import StartTimes
from framework.preemption.types import Candidate, Victims

__all__ = [
    "Candidate",
    "Evaluator",
    "Executor",
    "Interface",
    "PodPreemptor",
    "StartTimes",
    "Victims",
    "pick_one_node_for_preemption",
]
