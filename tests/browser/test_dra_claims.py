"""A GPU claimed through DRA, in a real browser: a pod whose ResourceClaimTemplate does not
exist yet waits; once someone creates the template in another tab, the ResourceClaim controller's
work gives the pod its claim, the scheduler allocates an A100 from the demo's ResourceSlice, and
the pod's page (never reloaded) shows the device, the node and the reservation, while the nodes
page counts the devices in use (the demo's own pods hold the other two)."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.steps import (
    LIVE_TIMEOUT_MS,
    create_in_editor,
    follow_link,
    log_in,
    mark_page,
    page_is_the_same,
)

POD = "default/viz"
POD_YAML = """\
apiVersion: v1
kind: Pod
metadata:
  name: viz
  namespace: default
spec:
  tolerations:
  - {key: nvidia.com/gpu, operator: Equal, value: present, effect: NoSchedule}
  containers:
  - name: app
    image: busybox
    resources:
      requests: {cpu: 500m, memory: 1Gi}
      claims: [{name: gpu}]
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: a100
"""
TEMPLATE_YAML = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: a100
  namespace: default
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.nvidia.com
          selectors:
          - cel:
              expression: device.attributes["gpu.nvidia.com"].model == "a100"
"""


def test_a_pod_waiting_for_its_template_gets_a_gpu_once_the_template_exists(context, demo):
    page = context.new_page()
    log_in(page, demo)
    # The demo's finetune pod holds the H100 and its render pod an A100: two of three in use.
    page.goto("/w/demo/nodes/")
    expect(page.locator("#devices-c-gpu-2")).to_contain_text("2 / 3", timeout=LIVE_TIMEOUT_MS)

    create_in_editor(page, POD_YAML, f"Saved Pod {POD}.")
    follow_link(page, POD)
    claims = page.get_by_role("table", name="Resource claims")
    expect(claims).to_contain_text("ResourceClaim not created yet")
    mark_page(page)

    create_in_editor(context.new_page(), TEMPLATE_YAML, "Saved ResourceClaimTemplate default/a100.")

    expect(page.locator("#pod-state")).to_have_text("bound on c-gpu-2", timeout=LIVE_TIMEOUT_MS)
    row = claims.get_by_role("row").nth(1)
    expect(row).to_contain_text("gpu.nvidia.com/c-gpu-2/gpu-1")
    expect(row).to_contain_text("on c-gpu-2")
    expect(row.get_by_role("link")).to_have_text(re.compile(r"^viz-gpu-\w{5}$"))
    assert page_is_the_same(page), "the claim's allocation arrived without a reload"

    nodes = context.new_page()
    nodes.goto("/w/demo/nodes/")
    expect(nodes.locator("#devices-c-gpu-2")).to_contain_text("3 / 3")
