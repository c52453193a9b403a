"""Every house-rule test that takes a ``table`` (tests/engine/rules/test_house_rules_*.py),
run again on tables played through the HTTP routes (``tests.service.house_http``): the
service answers as the engine does, and every exchange agrees with the spec."""

from __future__ import annotations

import inspect
from types import ModuleType

import pytest

from tests.engine.rules import (
    test_house_rules_drawing,
    test_house_rules_jump_in,
    test_house_rules_meet,
    test_house_rules_seven_zero,
    test_house_rules_stacking,
)
from tests.engine.rules.house_table import Deal
from tests.service.harness import ApiClient, api, api_app, openapi_spec
from tests.service.house_http import deal_over_http

FIXTURES = (api, api_app, openapi_spec)  # the fixtures these tests take
MODULES = (
    test_house_rules_drawing,
    test_house_rules_jump_in,
    test_house_rules_meet,
    test_house_rules_seven_zero,
    test_house_rules_stacking,
)


@pytest.fixture
def table(api: ApiClient) -> Deal:
    """The engine modules' ``table``, through the HTTP routes."""
    return deal_over_http(api)


def table_tests_of(module: ModuleType) -> dict[str, object]:
    """The module's tests that take ``table``, named ``test_<module>__<test>``."""
    short = module.__name__.rsplit(".", 1)[1].removeprefix("test_house_rules_")
    return {
        f"test_{short}__{name.removeprefix('test_')}": fn
        for name, fn in vars(module).items()
        if name.startswith("test_") and callable(fn) and "table" in inspect.signature(fn).parameters
    }


for _module in MODULES:
    globals().update(table_tests_of(_module))


def test_every_house_rule_test_with_a_table_runs_here() -> None:
    """Every engine house-rule module with ``table`` tests is listed in ``MODULES``, and
    each of its table tests is collected here."""
    import pkgutil

    import tests.engine.rules as rules

    with_tables = set()
    for info in pkgutil.iter_modules(rules.__path__):
        if info.name.startswith("test_house_rules_"):
            module = __import__(f"tests.engine.rules.{info.name}", fromlist=["_"])
            if table_tests_of(module):
                with_tables.add(module)
    assert with_tables == set(MODULES)
    here = {name for name in globals() if name.startswith("test_") and "__" in name}
    assert here == {n for m in MODULES for n in table_tests_of(m)}
