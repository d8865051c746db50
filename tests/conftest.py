"""Test configuration: deterministic hypothesis runs (CI and local alike), and one Dask cluster per test
process for the tests that run on a real scheduler."""

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


@pytest.fixture(scope="session")
def dask_cluster():
    """A real two-worker ``distributed.LocalCluster`` of processes, started once per test process (xdist worker)
    and shared by the tests that run members on a scheduler (tests/numerics/test_ensemble.py,
    test_discrete_ensemble.py, tests/cli/test_cli_sweep.py, test_discrete_cli.py): four clusters started and
    their workers importing jetgeo four times cost about 10 s of CPU.  The tests only submit work to it."""
    import distributed  # the ensemble extra, part of the test extra; imported only where a test asks

    # a free port for its HTTP server (None means the default 8787, which the other xdist worker's cluster holds)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cl:
        yield cl
