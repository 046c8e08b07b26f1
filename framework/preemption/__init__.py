"""Preemption shared by PostFilter plugins: candidates, victims, the Evaluator and Executor."""
