"""The custom field samples of `GET /v1/fixtures`, checked as the suites will use them.

A sample promises that a custom field takes its `accepted` value and reads it back as
sent, and refuses each `refused` value as invalid with 422. The suites trust it: a
sample the API does not honour would fail the target's custom field tests for the
fixture's mistake. So each value is written by its resource's create (the deal's is
shown; the contact's and the organization's are the target's `creates.*`) in workspace
primary, and the answer read: an accepted value is a 2xx whose `custom_fields` holds it
(compared as a typed client reads JSON), a refused one a 422.
"""

import secrets
from collections.abc import Mapping
from typing import Any

import httpx

from crm_conformance.adapter_check.probe import Probe, contact
from crm_conformance.core.model import conventions
from crm_conformance.steps.factories import create_fields
from crm_conformance.steps.json_values import json_equal


class _Unnamed(Exception):
    """The target file names no create of the resource."""


def check_samples(
    probe: Probe, fixtures: Mapping[str, Any], undo: list[tuple[str, str]]
) -> list[str]:
    """Write every sample of `fixtures`; raise `Broken` at the first the API does not
    honour, or answer notes on the resources left unchecked."""
    samples = fixtures.get("custom_field_samples") or {}
    if not samples:
        return ["no custom_field_samples: the tests that write custom fields are not applicable"]
    notes = []
    for resource, fields in samples.items():
        for key, sample in fields.items():
            tries = [(sample["accepted"], True), *((v, False) for v in sample.get("refused") or ())]
            try:
                for value, takes in tries:
                    response = _create(probe, fixtures, undo, resource, {key: value})
                    wrong = _disproof(response, key, value, takes)
                    if wrong:
                        said = (
                            f"takes {value!r} and reads it back" if takes else f"refuses {value!r}"
                        )
                        request = f"{response.request.method} {response.request.url.path}"
                        raise probe.broken(
                            f"the fixtures' sample says the {resource} custom field {key} "
                            f"{said}, but {request} {wrong}"
                        )
            except _Unnamed as unnamed:
                notes.append(f"{resource} samples not checked: {unnamed}")
                break
    return notes


def _disproof(response: httpx.Response, key: str, value: Any, takes: bool) -> str | None:
    """How the answer to a write of `value` disproves the sample, or None."""
    if not takes:
        if response.status_code == 422:
            return None
        return f"answered {response.status_code} (expected 422 validation_failed)"
    body = response.json() if response.is_success and response.content else None
    shown = body.get("custom_fields") if isinstance(body, dict) else None
    if isinstance(shown, dict) and json_equal(shown.get(key, None), value):
        return None
    if response.is_success:
        return f"answered {response.status_code} with custom_fields {shown!r}"
    return f"answered {response.status_code}"


def _create(
    probe: Probe,
    fixtures: Mapping[str, Any],
    undo: list[tuple[str, str]],
    resource: str,
    custom: dict[str, Any],
) -> httpx.Response:
    """A new record of `resource` holding `custom`, made by its create; its id is undone."""
    if resource == "deal":
        pipeline = next((p for p in fixtures.get("pipelines") or () if p.get("stages")), None)
        if pipeline is None:
            raise _Unnamed("the fixtures list no pipeline with a stage")
        if "records" not in probe.listed:
            raise _Unnamed("the adapter lists no records feature to make the deal's contact")
        linked = contact(probe, "primary")
        undo.append(("deleteRecord", str(linked["id"])))
        body = {
            "title": probe.name("sample"),
            "pipeline_id": pipeline["id"],
            "stage_id": pipeline["stages"][0]["id"],
            "contact_id": linked["id"],
            "custom_fields": custom,
        }
        response = probe.api.post("/v1/deals", json=body)
    else:
        fields = create_fields(
            resource, lambda label: probe.name(f"{label}-{secrets.token_hex(4)}")
        )
        operation = conventions.create(
            _lookup(probe), resource, {**fields, "custom_fields": custom}
        )
        response = probe.api.request(operation.method, operation.path, json=operation.body)
    made = response.json() if response.is_success and response.content else None
    if isinstance(made, dict) and isinstance(made.get("id"), str) and "records" in probe.listed:
        undo.append(("deleteRecord", made["id"]))
    return response


def _lookup(probe: Probe) -> conventions.Lookup:
    def lookup(key: str) -> str:
        value = probe.target.conventions.get(key)
        if value is None:
            raise _Unnamed(f"the target file names no {key} under [conventions]")
        return str(value)

    return lookup
