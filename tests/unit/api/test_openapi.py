"""The OpenAPI document served at /api/v1/openapi.json is valid OpenAPI 3.1 and
describes exactly the routes the server answers: the same paths, the same
path and query parameters, GET only."""

from __future__ import annotations

import re
from typing import Any

from jsonschema import Draft202012Validator
from openapi_spec_validator import validate

from server.api.openapi import DOCUMENT, NAME_MAX
from server.api.routes import PAGE_MAX, ROUTES
from server.wire.protocol import MAX_NAME_CHARS


def test_the_document_is_valid_openapi_3_1() -> None:
    assert DOCUMENT["openapi"].startswith("3.1")
    validate(DOCUMENT)  # raises on any error
    for schema in DOCUMENT["components"]["schemas"].values():
        Draft202012Validator.check_schema(schema)


def test_every_route_is_a_path_of_the_document_and_every_path_a_route() -> None:
    routes = {route.template for route in ROUTES}
    assert len(routes) == len(ROUTES)  # no route twice
    assert routes == set(DOCUMENT["paths"]), routes ^ set(DOCUMENT["paths"])


def _parameters(operation: dict[str, Any], where: str) -> set[str]:
    return {p["name"] for p in operation.get("parameters", []) if p["in"] == where}


def test_each_route_takes_the_parameters_its_path_documents() -> None:
    for route in ROUTES:
        item = DOCUMENT["paths"][route.template]
        assert set(item) == {"get"}, route.template  # a read API: GET only
        operation = item["get"]
        placeholders = set(re.findall(r"\{([a-z_]+)\}", route.template))
        assert _parameters(operation, "path") == placeholders, route.template
        assert _parameters(operation, "query") == set(route.query), route.template
        assert {"200", "429"} <= set(operation["responses"]), route.template


def test_the_documented_bounds_are_the_servers() -> None:
    assert NAME_MAX == MAX_NAME_CHARS
    limit = next(p for p in DOCUMENT["paths"]["/api/v1/boards/{kind}/{variant}"]["get"]["parameters"]
                 if p["name"] == "limit")
    assert limit["schema"]["maximum"] == PAGE_MAX
