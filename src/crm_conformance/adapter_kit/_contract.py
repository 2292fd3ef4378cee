"""`spec/adapter.yaml` read once, as validators: one reading of the contract for everyone.

The kit validates request bodies and parameters with it, and answers of a vendor's
methods; `adapter-check` validates a running adapter's answers with the same
validators, so "what the contract says" has one source, the YAML file. Every schema is
checked by reference into the loaded document (`urn:crm-conformance:adapter#/...`), so
`$ref`s inside it resolve as the file wrote them.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from jsonschema import (  # type: ignore[import-untyped]  # no stubs in the dev extras
    Draft202012Validator,
    ValidationError,
)
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from crm_conformance.adapter_kit._types import Problem
from crm_conformance.core.model import paths

_URI = "urn:crm-conformance:adapter"
_METHODS = ("get", "put", "post", "delete", "patch")


@dataclass(frozen=True)
class Parameter:
    """A path or query parameter of an operation."""

    name: str
    location: str
    required: bool
    validator: Draft202012Validator


@dataclass(frozen=True)
class Operation:
    """One operation of the contract: where it is, its feature, what it takes and answers."""

    operation_id: str
    method: str
    path: str
    feature: str | None
    """The `x-feature` the operation belongs to; None for `health`."""
    body: Draft202012Validator | None
    parameters: tuple[Parameter, ...]
    answers: Mapping[int, Draft202012Validator | None] = field(default_factory=dict)
    """Success status -> validator of its body (None for no body)."""


@dataclass(frozen=True)
class Contract:
    """The loaded contract."""

    operations: tuple[Operation, ...]
    features: tuple[str, ...]
    """Every `x-feature`, in the order the file first names them."""
    derived_fields: Mapping[str, tuple[str, ...]]
    """Record kind -> the fields `POST /v1/records` refuses (`x-derived-fields`)."""
    error: Draft202012Validator
    """The error envelope, `components/schemas/Error`."""

    def operation(self, operation_id: str) -> Operation:
        """The operation of that id (a `KeyError` names the known ones)."""
        for operation in self.operations:
            if operation.operation_id == operation_id:
                return operation
        known = ", ".join(op.operation_id for op in self.operations)
        raise KeyError(f"no operation {operation_id!r} in the adapter contract; known: {known}")

    def of_feature(self, feature: str) -> tuple[Operation, ...]:
        """The operations of one feature, in file order."""
        return tuple(op for op in self.operations if op.feature == feature)


def _pointer(*parts: str) -> str:
    return "/".join(part.replace("~", "~0").replace("/", "~1") for part in ("", *parts))


@cache
def load_contract(path: Path = paths.ADAPTER_SPEC) -> Contract:
    """The contract of `spec/adapter.yaml` (read and compiled once per process)."""
    document = yaml.load(path.read_text(encoding="utf-8"), Loader=_loader())
    registry: Registry[Any] = Registry().with_resource(
        _URI, Resource.from_contents(document, default_specification=DRAFT202012)
    )

    def validator(*parts: str) -> Draft202012Validator:
        return Draft202012Validator({"$ref": f"{_URI}#{_pointer(*parts)}"}, registry=registry)

    operations = []
    for route, item in document["paths"].items():
        for method in _METHODS:
            if method not in item:
                continue
            spec = item[method]
            where = ("paths", route, method)
            body = None
            if "requestBody" in spec:
                body = validator(*where, "requestBody", "content", "application/json", "schema")
            parameters = tuple(
                Parameter(
                    name=_resolved(document, parameter)["name"],
                    location=_resolved(document, parameter)["in"],
                    required=bool(_resolved(document, parameter).get("required")),
                    validator=validator(*_parameter_pointer(where, index, parameter), "schema"),
                )
                for index, parameter in enumerate(spec.get("parameters", ()))
            )
            answers: dict[int, Draft202012Validator | None] = {}
            for status, answer in spec["responses"].items():
                if not str(status).isdigit() or not 200 <= int(status) < 300:
                    continue
                content = answer.get("content", {}).get("application/json")
                answers[int(status)] = (
                    None
                    if content is None
                    else validator(
                        *where, "responses", str(status), "content", "application/json", "schema"
                    )
                )
            operations.append(
                Operation(
                    operation_id=spec["operationId"],
                    method=method.upper(),
                    path=route,
                    feature=spec.get("x-feature"),
                    body=body,
                    parameters=parameters,
                    answers=answers,
                )
            )
    record_fields = document["components"]["schemas"]["RecordCreate"]["properties"]["fields"]
    return Contract(
        operations=tuple(operations),
        features=tuple(dict.fromkeys(op.feature for op in operations if op.feature)),
        derived_fields={
            kind: tuple(names) for kind, names in record_fields["x-derived-fields"].items()
        },
        error=validator("components", "schemas", "Error"),
    )


def _loader() -> type[yaml.SafeLoader]:
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _resolved(document: Mapping[str, Any], parameter: Mapping[str, Any]) -> Mapping[str, Any]:
    """A parameter object, following a `#/components/parameters/...` reference."""
    reference = parameter.get("$ref")
    if reference is None:
        return parameter
    node: Any = document
    for part in reference.removeprefix("#/").split("/"):
        node = node[part]
    resolved: Mapping[str, Any] = node
    return resolved


def _parameter_pointer(
    where: tuple[str, ...], index: int, parameter: Mapping[str, Any]
) -> tuple[str, ...]:
    reference = parameter.get("$ref")
    if reference is None:
        return (*where, "parameters", str(index))
    return tuple(reference.removeprefix("#/").split("/"))


def schema_problems(
    validator: Draft202012Validator, instance: Any, *, prefix: str = ""
) -> list[Problem]:
    """Every way `instance` breaks the schema, as `Problem`s naming the field's dotted path.

    A missing required key or an unknown one is named by its own path (not its parent's),
    so a reader sees which field to fix.
    """
    found: list[Problem] = []
    for error in sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path)):
        found.extend(_problems(error, prefix))
    return found


def _problems(error: ValidationError, prefix: str) -> Iterable[Problem]:
    base = ".".join(str(part) for part in (*([prefix] if prefix else []), *error.absolute_path))

    def at(name: str) -> str:
        return f"{base}.{name}" if base else name

    kind = str(error.validator)
    instance = error.instance
    if kind == "required" and isinstance(instance, dict):
        for name in error.validator_value:
            if name not in instance:
                yield Problem(at(name), "is required", "missing")
    elif kind == "additionalProperties" and isinstance(instance, dict):
        known = set(error.schema.get("properties", {}))
        for name in instance:
            if name not in known:
                yield Problem(at(name), "unknown field", "unknown_field")
    elif kind == "dependentRequired" and isinstance(instance, dict):
        for name, needs in error.validator_value.items():
            missing = [need for need in needs if name in instance and need not in instance]
            if missing:
                yield Problem(at(name), f"needs {', '.join(missing)}", "dependency")
    elif kind == "not" and isinstance(instance, dict):
        together = error.validator_value.get("required", [])
        yield Problem(at(together[0]), f"is not allowed with {', '.join(together[1:])}", "one_of")
    else:
        yield Problem(base or "body", error.message, kind)
