"""Storage helpers the volume plugins share.

The Python side of what upstream keeps outside the plugins: the informer listers' lookups
(``lookup``), ``component-helpers/storage/volume`` (``volume``), ``component-helpers/storage/
ephemeral`` (``ephemeral``) and ``csi-translation-lib`` (``csi_translation``).
"""
