"""The connection forms: new (paste or upload a kubeconfig, pick a context), and settings.

A form with errors is shown again with everything typed kept, except the kubeconfig itself,
which is never rendered back to a page: the browser gets it sealed (encrypted with the
playground's key, valid for an hour) in a hidden field instead, so a person fixes a context or
a selector, or ticks "Save anyway", without pasting it again.
"""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.core.files.uploadedfile import UploadedFile

from framework.api.label_syntax import parse_selector
from framework.api.labels import SelectorError
from playground.clusters.connecting import Target, target_from_text
from playground.clusters.encryption import EncryptionKeyError, decrypt, encrypt
from playground.clusters.kubeconfig import MAX_KUBECONFIG_BYTES, KubeconfigError, parse_kubeconfig
from playground.clusters.models import ClusterConnection

SEALED_SECONDS = 3600
NAMESPACE_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


class SecretTextarea(forms.Textarea):
    """A textarea that never renders the value it was given (PasswordInput's rule)."""

    def format_value(self, value: Any) -> None:
        return None


class FollowFields(forms.Form):
    """What to follow: namespaces and a label selector (shared by both forms)."""

    def clean_namespaces(self) -> str:
        names = [name.strip() for name in self.cleaned_data["namespaces"].split(",")]
        for name in filter(None, names):
            if len(name) > 63 or not NAMESPACE_NAME.match(name):
                raise forms.ValidationError(
                    f'"{name}" is not a namespace name (lowercase letters, digits and "-")'
                )
        return ", ".join(filter(None, names))

    def clean_label_selector(self) -> str:
        text = self.cleaned_data["label_selector"].strip()
        try:
            parse_selector(text)
        except SelectorError as err:
            raise forms.ValidationError(str(err)) from None
        return text


class KubeconfigFields(forms.Form):
    """A kubeconfig pasted, uploaded or sealed, and the context to use."""

    kubeconfig = forms.CharField(
        required=False,
        strip=False,
        widget=SecretTextarea(attrs={"rows": 12, "spellcheck": "false", "autocomplete": "off"}),
        help_text="Paste it (kubectl config view --raw --flatten --minify).",
    )
    kubeconfig_file = forms.FileField(required=False, label="or upload it")
    sealed = forms.CharField(required=False, widget=forms.HiddenInput)
    context = forms.CharField(required=False, max_length=253, help_text="Empty: current-context.")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.target: Target | None = None
        self.sealed_value = ""
        self.contexts: tuple[str, ...] = ()

    def kubeconfig_given(self) -> str:
        """The text pasted or uploaded now, else the sealed one, else "" (errors added)."""
        upload: UploadedFile | None = self.cleaned_data.get("kubeconfig_file")
        if upload is not None:
            if upload.size > MAX_KUBECONFIG_BYTES:
                self.add_error("kubeconfig_file", "larger than 1 MiB: is it a kubeconfig?")
                return ""
            try:
                return upload.read().decode()
            except UnicodeDecodeError:
                self.add_error("kubeconfig_file", "not a text file (a kubeconfig is YAML)")
                return ""
        if self.cleaned_data.get("kubeconfig", "").strip():
            return self.cleaned_data["kubeconfig"]
        if self.cleaned_data.get("sealed"):
            try:
                return decrypt(self.cleaned_data["sealed"], "kubeconfig", ttl=SEALED_SECONDS)
            except EncryptionKeyError:
                self.add_error("kubeconfig", "the kubeconfig given earlier expired: paste it again")
        return ""

    def check_kubeconfig(self, text: str) -> None:
        """Sets ``target`` (or field errors), and seals the text for the next rendering."""
        try:
            kubeconfig = parse_kubeconfig(text)
        except KubeconfigError as err:
            self.add_error("kubeconfig", str(err))
            return
        self.sealed_value = encrypt(text)
        self.contexts = kubeconfig.contexts
        try:
            self.target = target_from_text(text, self.cleaned_data.get("context", ""))
        except KubeconfigError as err:
            self.add_error("context", str(err))


class ConnectionForm(KubeconfigFields, FollowFields):
    """A new connection (see the module)."""

    name = forms.CharField(max_length=100)
    in_cluster = forms.BooleanField(
        required=False,
        label="In-cluster",
        help_text="Use the service account of the pod the playground runs in (no kubeconfig).",
    )
    namespaces = forms.CharField(required=False, max_length=2000, help_text="Empty: all.")
    label_selector = forms.CharField(required=False, max_length=2000, help_text="app=web")
    save_anyway = forms.BooleanField(
        required=False, help_text="Store it even though Test connection failed."
    )
    field_order = ("name", "in_cluster", "kubeconfig", "kubeconfig_file", "context")

    def __init__(self, *args: Any, owner: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.owner = owner

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if ClusterConnection.objects.filter(owner=self.owner, name=name).exists():
            raise forms.ValidationError(f'you already have a connection named "{name}"')
        return name

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        text = self.kubeconfig_given()
        if cleaned.get("in_cluster"):
            if text:
                self.add_error("kubeconfig", "an in-cluster connection uses no kubeconfig")
            else:
                self.target = Target(in_cluster=True)
        elif text:
            self.check_kubeconfig(text)
        elif not self.has_error("kubeconfig"):
            self.add_error("kubeconfig", "required: paste or upload a kubeconfig")
        return cleaned


class SettingsForm(KubeconfigFields, FollowFields, forms.ModelForm):
    """What a stored connection follows and may do; optionally new credentials.

    Turning the second scheduler on binds real pods of the cluster: the form asks again, with
    ``confirm``, before it takes it.
    """

    confirm = forms.BooleanField(
        required=False,
        label="Yes, schedule this cluster's real pods",
        help_text="Pods whose schedulerName names one of the workspace's profiles will be bound "
        "by this playground.",
    )

    class Meta:
        model = ClusterConnection
        fields = ("namespaces", "label_selector", "second_scheduler", "preemption")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields[
            "kubeconfig"
        ].help_text = (
            "Replace the credentials: paste or upload a new kubeconfig (empty keeps them)."
        )
        self.fields["context"].help_text = "Empty keeps the context (or current-context)."
        self.needs_confirmation = False

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        text = self.kubeconfig_given()
        if text and self.instance.in_cluster:
            self.add_error("kubeconfig", "an in-cluster connection uses no kubeconfig")
        elif text:
            if not cleaned.get("context"):
                cleaned["context"] = self.instance.context
            self.check_kubeconfig(text)
        if cleaned.get("preemption") and not cleaned.get("second_scheduler"):
            self.add_error("preemption", "preemption needs the second scheduler on")
        turning_on = cleaned.get("second_scheduler") and not self.initial.get("second_scheduler")
        if turning_on and not cleaned.get("confirm"):
            self.needs_confirmation = True
            self.add_error("confirm", "confirm: this playground will bind real pods")
        return cleaned

    def save(self, commit: bool = True) -> ClusterConnection:
        connection = super().save(commit=False)
        if self.target is not None:
            connection.set_kubeconfig(self.target.kubeconfig_text)
            connection.context = self.target.context
            connection.server = self.target.server
            connection.last_test = None
        if commit:
            connection.save()
        return connection
