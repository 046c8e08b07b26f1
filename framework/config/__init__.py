"""KubeSchedulerConfiguration v1: load, default, validate and encode, as kube-scheduler does.

Typical use::

    cfg = set_defaults(load_config(Path("scheduler.yaml")))
    errors = validate(cfg)            # [] when valid; str(error) is upstream's message
    print(to_yaml(cfg))               # what --write-config-to would write
"""
