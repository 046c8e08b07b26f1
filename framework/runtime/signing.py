"""Pod signatures: the Sign extension point (upstream frameworkImpl.SignPod).

A profile signs pods only when every plugin that judges or ranks nodes (PreFilter, Filter,
PreScore, Score) is a SignPlugin and no extender is configured: anything else could tell two
pods apart in a way no signature shows. A pod's signature is its scheduler name plus every
signing plugin's fragments, one per key, as canonical JSON bytes; None when a plugin refuses.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING

from framework.interface.plugins import SignPlugin
from framework.interface.signers import SCHEDULER_NAME_SIGNER_NAME
from framework.interface.status import Code

if TYPE_CHECKING:
    from collections.abc import Iterable

    from framework.api.pod import Pod
    from framework.interface.plugins import Plugin

logger = logging.getLogger(__name__)


def batchable_plugins(
    profile_name: str, candidates: Iterable[Plugin], has_extenders: bool
) -> list[SignPlugin] | None:
    """The signing plugins in order, each once; None when this profile cannot sign pods.

    ``candidates`` are the PreFilter, Filter, PreScore and Score plugins, in that order.
    """
    enabled = not has_extenders
    if has_extenders:
        logger.info("Disabling signatures for profile %s: it has extenders.", profile_name)
    signers: dict[str, SignPlugin] = {}
    unsupported: set[str] = set()
    for plugin in candidates:
        if plugin.name in signers or plugin.name in unsupported:
            continue
        if isinstance(plugin, SignPlugin):
            signers[plugin.name] = plugin
        else:
            unsupported.add(plugin.name)
            enabled = False
    if unsupported:
        logger.info(
            "Disabling signatures for profile %s: plugins %s do not sign pods.",
            profile_name,
            sorted(unsupported),
        )
    return list(signers.values()) if enabled else None


def sign_pod(plugins: Iterable[SignPlugin], pod: Pod) -> bytes | None:
    """The pod's signature, or None if a plugin cannot sign it."""
    signature: dict[str, object] = {SCHEDULER_NAME_SIGNER_NAME: pod.spec.scheduler_name}
    for plugin in plugins:
        fragments, status = plugin.sign_pod(pod)
        if status is not None and not status.is_success():
            if status.code == Code.ERROR:
                logger.error("SignPod failed for plugin %s: %s", plugin.name, status.message())
            return None
        for fragment in fragments or ():
            signature[fragment.key] = fragment.value
    try:
        return json.dumps(signature, sort_keys=True, separators=(",", ":")).encode()
    except (TypeError, ValueError) as err:
        logger.error("SignPod failed to marshal the signature of %s: %s", pod.key, err)
        return None
