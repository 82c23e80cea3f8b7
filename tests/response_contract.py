"""Every response the test suite receives, checked against what `/openapi.json` declares for it.

`tests/conftest.py` hooks `ResponseContract.check` into the `api` client, so each of the suite's
requests doubles as a contract test: the operation is found by matching the request path to the
document's path templates, and the response must have a declared status, a declared media type and
a body valid against the declared schema (jsonschema, Draft 2020-12). Objects are checked closed:
a property the schema does not declare fails, unless the model says the object is open
(`additionalProperties`), so an undocumented field is caught, not just a missing one.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import httpx
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

DOCUMENT_URI = "urn:hippograph:openapi"
METHODS = {"get", "put", "post", "delete", "patch"}


def closed(schema: Any) -> Any:
    """A copy of `schema` in which every object with declared properties and no word on others
    refuses undeclared properties."""
    if isinstance(schema, list):
        return [closed(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    result = {key: closed(value) for key, value in schema.items()}
    if "properties" in result and "additionalProperties" not in result:
        result["additionalProperties"] = False
    return result


def media_type(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


class ResponseContract:
    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        components = closed(copy.deepcopy(document.get("components", {})))
        resource = Resource.from_contents({"components": components}, default_specification=DRAFT202012)
        self.registry: Registry = Registry().with_resource(DOCUMENT_URI, resource)
        # Literal templates before those with parameters, so `/v1/keys` never reads as `/v1/keys/{key_id}`.
        templates = sorted(document["paths"], key=lambda path: (path.count("{"), path))
        self._validators: dict[str, Draft202012Validator] = {}
        self.paths = [(re.compile("^" + re.sub(r"\{[^/}]+\}", "[^/]+", path) + "$"), path) for path in templates]

    def operation(self, method: str, path: str) -> tuple[str, dict[str, Any]] | None:
        for pattern, template in self.paths:
            if pattern.match(path):
                item = self.document["paths"][template]
                found = item.get(method.lower())
                return (template, found) if found is not None else None
        return None

    def check(self, response: httpx.Response) -> None:
        """Raises AssertionError when the response is not what the document declares."""
        response.read()
        method, path = response.request.method, response.request.url.path
        found = self.operation(method, path)
        if found is None:  # not an operation (an unknown path, a method not allowed): the error shape
            if response.status_code >= 400:
                self._validate({"$ref": "#/components/schemas/ErrorBody"}, response, f"{method} {path}")
            return
        template, operation = found
        what = f"{method} {template} -> {response.status_code}"
        declared = operation.get("responses", {}).get(str(response.status_code))
        assert declared is not None, (
            f"{what}: status {response.status_code} is not declared in /openapi.json "
            f"(declared: {sorted(operation.get('responses', {}))}); body: {response.text[:300]}"
        )
        content = declared.get("content", {})
        if not content:
            assert not response.content, f"{what}: declared without a body, answered {response.text[:200]!r}"
            return
        answered = media_type(response.headers.get("content-type"))
        assert answered in content, f"{what}: media type {answered!r} not declared (declared: {sorted(content)})"
        schema = content[answered].get("schema")
        if answered == "application/json" and schema:
            self._validate(schema, response, what)

    def _validator(self, schema: dict[str, Any]) -> Draft202012Validator:
        """The operation's schema, its `#/components/…` references read from the document."""
        text = json.dumps(closed(schema), sort_keys=True)
        if text not in self._validators:
            absolute = text.replace('"#/components/', f'"{DOCUMENT_URI}#/components/')
            self._validators[text] = Draft202012Validator(json.loads(absolute), registry=self.registry)
        return self._validators[text]

    def _validate(self, schema: dict[str, Any], response: httpx.Response, what: str) -> None:
        try:
            body = response.json()
        except json.JSONDecodeError as exc:
            raise AssertionError(f"{what}: the body is not JSON: {response.text[:200]!r}") from exc
        validator = self._validator(schema)
        errors = sorted(validator.iter_errors(body), key=lambda error: list(error.absolute_path))
        lines = [f"  at {'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message[:300]}" for e in errors[:10]]
        assert not errors, f"{what}: the body does not match its declared schema:\n" + "\n".join(lines)
