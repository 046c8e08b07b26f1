"""The object editor in a real browser: an edit is checked as kube-apiserver checks an update,
and a pod whose spec change is refused can be deleted and created again from the edited text,
as ``kubectl replace --force`` does (after the browser's confirmation)."""

from __future__ import annotations

from playwright.sync_api import Dialog, expect

from tests.browser.steps import follow_link, log_in

POD = "default/kept"
POD_YAML = """\
apiVersion: v1
kind: Pod
metadata:
  name: kept
  namespace: default
spec:
  schedulerName: nobody
  containers:
  - name: app
    image: nginx:1.27
    resources:
      requests:
        cpu: 100m
"""


def test_a_refused_pod_edit_offers_to_delete_and_recreate_the_pod(context, demo):
    page = context.new_page()
    log_in(page, demo)
    page.goto("/w/demo/objects/new/")
    page.get_by_label("manifest (YAML)").fill(POD_YAML)
    page.get_by_role("button", name="Create").click()
    expect(page.locator(".flash.success")).to_have_text(f"Saved Pod {POD}.")

    follow_link(page, POD)  # on the pods page, whose rows the websocket redraws
    page.get_by_role("link", name="Edit YAML").click()
    editor = page.get_by_label("manifest (YAML)")
    editor.fill(editor.input_value().replace("cpu: 100m", "cpu: 200m"))
    page.get_by_role("button", name="Save").click()
    errors = page.locator("#object-editor .errors")
    expect(errors).to_contain_text('spec: Pod "default/kept": Forbidden: pod updates may not')
    expect(errors).to_contain_text('+     "cpu": "200m"')

    confirmations: list[str] = []

    def accept(dialog: Dialog) -> None:
        confirmations.append(dialog.message)
        dialog.accept()

    page.on("dialog", accept)
    page.get_by_role("button", name="Delete and recreate").click()
    expect(page.locator(".flash.success")).to_have_text(f"Deleted and recreated Pod {POD}.")
    assert confirmations == [f"Delete Pod {POD} and create it again from this text?"]
