"""The kube-scheduler v1.36 scheduling framework in pure Python.

Usable as a library, as a command line tool (``python -m framework``) and as a scheduler.
Nothing under this package imports Django: the playground adapts it, never the reverse.
"""
