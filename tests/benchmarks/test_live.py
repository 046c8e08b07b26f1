"""The live benchmark's figures and errors, without a control plane (its run needs one, and
several minutes: ``python -m benchmarks live --nodes 100 --pods 200 --burst 100``)."""

from __future__ import annotations

import pytest

from benchmarks.__main__ import main
from benchmarks.control_plane import ControlPlaneError, assets_folder
from benchmarks.live import Burst


def test_the_rate_counts_the_pods_bound_between_the_10th_and_90th_percentile_times():
    # 100 pods: the first ten wait 5 s, then one every 0.1 s, the last ten straggle.
    times = [5.0] * 10 + [5.0 + 0.1 * i for i in range(1, 81)] + [60.0] * 10
    burst = Burst(pods=100, create_seconds=1.0, bound_at=times)

    # Indexes 10 (5.1 s) to 89 (13.0 s): 79 pods in 7.9 s.
    assert burst.rate == pytest.approx(10.0)
    assert burst.all_bound_seconds == 60.0


def test_a_burst_not_wholly_bound_says_how_many_were():
    burst = Burst(pods=100, create_seconds=1.0, bound_at=[1.0, 2.0])

    assert burst.all_bound_seconds is None
    assert "only 2 of 100 bound" in burst.report()


def test_the_assets_folder_must_hold_etcd_and_kube_apiserver(tmp_path):
    with pytest.raises(ControlPlaneError, match="KUBEBUILDER_ASSETS is not set"):
        assets_folder({})
    (tmp_path / "etcd").write_text("")
    with pytest.raises(ControlPlaneError, match="no kube-apiserver there"):
        assets_folder({"KUBEBUILDER_ASSETS": str(tmp_path)})


def test_the_command_names_the_missing_variable(monkeypatch, capsys):
    monkeypatch.delenv("KUBEBUILDER_ASSETS", raising=False)

    assert main(["live", "--mode", "embedded", "--nodes", "1", "--pods", "0"]) == 2
    assert "KUBEBUILDER_ASSETS is not set" in capsys.readouterr().err
