"""Test configuration: deterministic hypothesis runs (CI and local alike), and ``call_log``."""

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    max_examples=40,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.register_profile(
    "thorough",
    derandomize=False,
    deadline=None,
    max_examples=400,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("JETGEO_HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def call_log(monkeypatch):
    """``call_log(owner, name)`` wraps ``owner.name`` for the test so that every call is recorded (its
    positional arguments, in a list that is returned) and still runs the real function: how the tests
    check that a result is computed once, or that a costly path is never taken."""

    def install(owner, name: str) -> list:
        calls: list = []
        real = getattr(owner, name)

        def recording(*args, **kwargs):
            calls.append(args)
            return real(*args, **kwargs)

        monkeypatch.setattr(owner, name, recording)
        return calls

    return install
