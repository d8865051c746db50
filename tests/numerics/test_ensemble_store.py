"""Study stores (jetgeo.numerics.ensemble_store): the lock, atomic creation, validated resume, and
pool workers that end with their parent — with real processes where the failure needs one.

Truth: a study written without interruption (each member's data is fixed by its own initial
state and parameters, independent of chunking and scheduling: ``theory/ensembles.md``); a
damaged or interrupted store must resume to exactly that dataset or be refused with a message
naming the damage (CLI exit 2) — never other data with exit 0, never exit 3.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import pytest
import xarray as xr
import zarr
from numerics_systems import rolling_disc

from jetgeo.cli import main as cli_main
from jetgeo.errors import InputError
from jetgeo.numerics import ensemble_store
from jetgeo.numerics.ensemble_store import StoreLock, StoreRepairWarning
from jetgeo.numerics.ensembles import ensemble, grid

ROOT = Path(__file__).resolve().parents[2]
SWEEP = ["sweep", "vertical_rolling_disc", "--t-end", "1", "--param", "R=0.5:1.5:6", "--points", "5"]


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def cli(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "jetgeo.cli", *args], capture_output=True, text=True,
                          env=_env(), timeout=timeout)


def sweep_here(argv, capsys) -> tuple:
    """``jetgeo sweep`` run in this process (a process other than the scripts it is tested against):
    (exit code, stdout, stderr)."""
    code = cli_main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def start_script(code: str) -> subprocess.Popen:
    """A real Python process running ``code``; it prints READY when it reaches the point to kill."""
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=_env())


def wait_ready(proc: subprocess.Popen, timeout: float = 60.0) -> None:
    t0 = time.monotonic()
    line = proc.stdout.readline()      # blocks until the child prints (or exits)
    assert line.strip() == "READY", (line, proc.stderr.read() if proc.poll() is not None else "")
    assert time.monotonic() - t0 < timeout


def kill(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)


# ----------------------------------------------------------------------------------------------
# the lock: two real runs on one store
# ----------------------------------------------------------------------------------------------
HOLD_AND_SLEEP = """
    import sys, time
    from jetgeo.numerics import ensemble_store
    from jetgeo import cli

    def write(self, i, ds):          # the first chunk is computed: hold the store (and its lock)
        print("READY", flush=True)
        time.sleep(120)

    ensemble_store.{kind}.write = write
    sys.exit(cli.main({argv!r}))
"""


def test_a_second_run_on_a_locked_store_exits_2_and_a_dead_owner_is_taken_over(tmp_path, capsys):
    suffix, kind = ".zarr", "ZarrStore"     # the lock is the same for both kinds of store
    out = tmp_path / f"study{suffix}"
    argv = [*SWEEP, "--out", str(out)]
    first = start_script(HOLD_AND_SLEEP.format(kind=kind, argv=argv))
    try:
        wait_ready(first)
        lock = out.with_name(out.name + ".lock")
        assert lock.is_file() and f'"pid": {first.pid}' in lock.read_text()
        code, _, err = sweep_here(argv, capsys)     # the second run: this process
        assert code == 2, err
        assert f"in use by pid {first.pid}" in err and err.count("\n") == 1
        assert "Traceback" not in err and not out.exists()
    finally:
        kill(first)
    # the owner is gone (SIGKILL: its lock file stays): the next run takes the lock over and finishes
    assert lock.is_file()
    code, stdout, err = sweep_here(argv, capsys)
    assert code == 0, err
    assert "ok 6" in stdout and not lock.exists()
    ds = xr.open_zarr(out, consolidated=False) if suffix == ".zarr" else xr.open_dataset(out)
    assert list(ds.member.values) == list(range(6)) and set(ds.status.values) == {"ok"}


def test_lock_in_process_refuses_a_live_owner_and_takes_over_a_stale_one(tmp_path):
    target = tmp_path / "s.zarr"
    with StoreLock(target):
        with pytest.raises(InputError, match="in use by pid"):
            StoreLock(target).acquire()
    lock = tmp_path / "s.zarr.lock"
    assert not lock.exists()
    # a lock left by a process that is gone: a real child that exited
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = int(child.stdout)
    lock.write_text(json.dumps({"pid": dead, "host": socket.gethostname(), "started": None}))
    with StoreLock(target) as mine:
        assert f'"pid": {os.getpid()}' in lock.read_text() and mine.path == lock
    # a lock this process leaked (no StoreLock of it holds it) is stale too
    lock.write_text(json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "started": None}))
    StoreLock(target).acquire().release()
    # another host's lock cannot be checked: refused, never broken
    lock.write_text(json.dumps({"pid": 1, "host": "elsewhere.example", "started": None}))
    with pytest.raises(InputError, match="in use by pid 1 on elsewhere.example"):
        StoreLock(target).acquire()


# ----------------------------------------------------------------------------------------------
# atomic creation: SIGKILL while the store is created
# ----------------------------------------------------------------------------------------------
KILLED_WHILE_CREATING = {
    # Zarr: the empty store is half written (its chunk index not yet) when the run is killed
    ".zarr": """
        import sys, time
        import xarray as xr
        from jetgeo import cli

        real = xr.Dataset.to_zarr

        def to_zarr(self, store, *args, mode=None, **kw):
            if mode in ("w", "w-"):
                real(self.drop_vars([v for v in ("chunk_done", "chunk_digest") if v in self]), store, *args,
                     mode=mode, **{{k: v for k, v in kw.items() if k != "encoding"}})
                print("READY", flush=True)
                time.sleep(120)
            return real(self, store, *args, mode=mode, **kw)

        xr.Dataset.to_zarr = to_zarr
        sys.exit(cli.main({argv!r}))
    """,
    # NetCDF: the chunk directory exists, its fingerprint not yet written, when the run is killed
    ".nc": """
        import pathlib, sys, time
        from jetgeo import cli

        real = pathlib.Path.write_text

        def write_text(self, *args, **kw):
            if self.name == "fingerprint":
                print("READY", flush=True)
                time.sleep(120)
            return real(self, *args, **kw)

        pathlib.Path.write_text = write_text
        sys.exit(cli.main({argv!r}))
    """,
}


@pytest.mark.parametrize("suffix", [".zarr", ".nc"])
def test_sigkill_while_creating_leaves_no_store_and_the_next_run_completes(tmp_path, suffix, capsys):
    out = tmp_path / f"study{suffix}"
    argv = [*SWEEP, "--out", str(out)]
    proc = start_script(KILLED_WHILE_CREATING[suffix].format(argv=argv))
    try:
        wait_ready(proc)
    finally:
        kill(proc)
    built = out if suffix == ".zarr" else out.with_name(out.name + ".parts")
    assert not built.exists()                       # no half-built store under the target's name
    code, stdout, err = sweep_here(argv, capsys)
    assert code == 0, err
    assert "ok 6" in stdout
    leftovers = sorted(p.name for p in tmp_path.iterdir() if p.name != out.name)
    assert leftovers == []                          # no temporary store, no lock, no chunk directory
    ds = xr.open_zarr(out, consolidated=False) if suffix == ".zarr" else xr.open_dataset(out)
    assert list(ds.member.values) == list(range(6)) and set(ds.status.values) == {"ok"}


# ----------------------------------------------------------------------------------------------
# pool workers end with their parent
# ----------------------------------------------------------------------------------------------
POOL = """
    import threading, time
    from jetgeo.numerics import ensembles
    if {threads}:             # another thread runs: the pool forks its workers from a fork server
        threading.Thread(target=time.sleep, args=(120,), daemon=True).start()
    if {no_prctl}:            # the portable fallback: no prctl, the workers watch their parent
        def no_libc(*a, **k):
            raise OSError("no libc here")
        ensembles.ctypes.CDLL = no_libc
    pool = ensembles._pool(2)
    futures = [pool.submit(time.sleep, 120) for _ in range(2)]
    time.sleep(0.5)
    print("READY", flush=True)
    time.sleep(120)
"""


def _children(pid: int) -> list:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if int(stat[stat.rfind(")") + 2:].split()[1]) == pid:
                out.append(int(d.name))
    return out


def _running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process tree from /proc")
@pytest.mark.parametrize("no_prctl, threads", [(False, False), (True, False), (False, True)],
                         ids=["prctl", "watcher-thread", "forkserver"])
def test_pool_workers_die_when_their_parent_is_killed(no_prctl, threads):
    proc = start_script(POOL.format(no_prctl=no_prctl, threads=threads))
    try:
        wait_ready(proc)
        workers = _children(proc.pid)
        workers += [w for c in workers for w in _children(c)]   # a fork server's children
        assert len(workers) >= 2          # the two pool workers (and any helper process of the pool)
    finally:
        kill(proc)
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline and any(_running(w) for w in workers):
        time.sleep(0.1)
    assert not any(_running(w) for w in workers), "orphaned pool workers outlived their killed parent"


# ----------------------------------------------------------------------------------------------
# validated resume: damaged stores, in process
# ----------------------------------------------------------------------------------------------
@functools.cache
def study():
    cs, (m, A, B, R) = rolling_disc()
    kw = dict(params={m: 1.0, A: 0.3, B: 0.2}, initial={"x": 0.0, "y": 0.0, "theta": 0.0, "psi": 0.1,
                                                       "thetadot": 1.0, "psidot": 0.3},
              complete=True, n_times=5, chunk_size=2, scheduler="serial")
    return cs, grid(R=[0.5, 0.75, 1.0, 1.25, 1.5, 1.75]), kw


def run(path, **extra):
    cs, members, kw = study()
    return ensemble(cs, members, (0.0, 1.0), store=path, **kw, **extra)


@functools.cache
def _reference():
    cs, members, kw = study()
    return ensemble(cs, members, (0.0, 1.0), **kw)


def reference():
    return _reference().copy(deep=True)


def _same_data(ds) -> None:
    xr.testing.assert_identical(ds.drop_attrs(), reference().drop_attrs())


def _recomputed(path) -> tuple:
    """(the resumed dataset, the chunks computed again, the repair warnings)."""
    seen = []
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ds = run(path, callback=lambda info: seen.append(info["chunk"]))
    return ds, sorted(seen), [str(x.message) for x in w if issubclass(x.category, StoreRepairWarning)]


def _copy_chunk_files(store: Path, src: int, dst: int) -> int:
    """Copy every array's chunk-file ``src`` over chunk ``dst`` (Zarr v3 keys ``NAME/c/i/...``)."""
    n = 0
    for arr in store.iterdir():
        if not (arr / "zarr.json").is_file():
            continue
        meta = json.loads((arr / "zarr.json").read_text())
        if -(-meta["shape"][0] // meta["chunk_grid"]["configuration"]["chunk_shape"][0]) <= max(src, dst):
            continue                                   # an array of one chunk (a coordinate)
        root = arr / "c" / str(src)
        if root.is_file():
            shutil.copyfile(root, arr / "c" / str(dst))
            n += 1
        elif root.is_dir():
            shutil.rmtree(arr / "c" / str(dst), ignore_errors=True)
            shutil.copytree(root, arr / "c" / str(dst))
            n += 1
    return n


@pytest.mark.parametrize("suffix", [".zarr", ".nc"])
def test_a_store_in_a_new_directory_is_created_and_a_file_in_the_way_is_named(tmp_path, suffix):
    _same_data(run(tmp_path / "new" / "dir" / f"s{suffix}"))
    (tmp_path / "file").write_text("")
    with pytest.raises(InputError, match="cannot create the directory of the store"):
        run(tmp_path / "file" / f"s{suffix}")


def test_zarr_chunk_copied_over_another_is_recomputed(tmp_path):
    path = tmp_path / "s.zarr"
    _same_data(run(path))
    assert _copy_chunk_files(path, 1, 0) >= 8      # data, status, messages, chunk_done, chunk_digest …
    ds, seen, repairs = _recomputed(path)
    assert seen == [0] and len(repairs) == 1 and "chunk 0" in repairs[0]
    _same_data(ds)
    # one variable's chunk changed behind the store's back: caught by the digest as well
    t = path / "trajectory" / "c"
    shutil.copytree(t / "2", t / "1", dirs_exist_ok=True)
    ds, seen, repairs = _recomputed(path)
    assert seen == [1] and len(repairs) == 1
    _same_data(ds)


@pytest.mark.parametrize("damage, chunks", [
    (lambda p: (p / "trajectory" / "c" / "1" / "0" / "0").write_bytes(b"not zstd"), [1]),
    (lambda p: (p / "status" / "c" / "2").write_bytes(b"not zstd"), [2]),
    (lambda p: (p / "chunk_digest" / "c" / "0").write_bytes(b"not zstd"), [0]),
    (lambda p: (p / "chunk_done" / "c" / "1").unlink(), [1]),      # read as not done
], ids=["trajectory", "status", "digest", "flag-lost"])
def test_zarr_chunk_files_that_cannot_be_decoded_are_recomputed(tmp_path, damage, chunks):
    path = tmp_path / "s.zarr"
    run(path)
    damage(path)
    ds, seen, repairs = _recomputed(path)
    assert seen == chunks and len(repairs) <= 1
    _same_data(ds)


def test_zarr_interrupted_then_damaged_resumes_to_the_same_data(tmp_path):
    path = tmp_path / "s.zarr"

    class Stop(Exception):
        pass

    def stop(info):
        raise Stop

    with pytest.raises(Stop):
        run(path, callback=stop)                       # chunk 0 written, 1 and 2 pending
    assert not (tmp_path / "s.zarr.lock").exists()    # an exception releases the lock
    _copy_chunk_files(path, 0, 1)                      # a done chunk copied over a pending one
    ds, seen, repairs = _recomputed(path)
    assert seen == [1, 2] and len(repairs) == 1
    _same_data(ds)


def _drop_attribute(meta: Path, name: str) -> None:
    m = json.loads(meta.read_text())
    del m["attributes"][name]
    meta.write_text(json.dumps(m))


@pytest.mark.parametrize("damage, message", [
    (lambda p: shutil.rmtree(p / "energy"), "the variable 'energy' is missing"),
    (lambda p: shutil.rmtree(p / "chunk_done"), "'chunk_done' is missing"),
    (lambda p: shutil.copytree(p / "trajectory" / "c" / "0", p / "trajectory" / "c" / "7"), "outside the chunk grid"),
    (lambda p: shutil.copyfile(p / "chunk_done" / "c" / "0", p / "chunk_done" / "c" / "3"), "outside the chunk grid"),
    (lambda p: (p / "notes").mkdir(), "'notes' is no array of the store"),
    (lambda p: (p / "member" / "c" / "0").write_bytes(b"not zstd"), "not a readable Zarr store"),
    (lambda p: (p / "R" / "c" / "0").write_bytes(b"not zstd"), "the member coordinate 'R' cannot be read"),
    (lambda p: (p / "zarr.json").write_text("{"), "not a readable Zarr store"),
    (lambda p: p.with_name("s.zarr.lock").mkdir(), "s.zarr.lock exists and is not a lock file"),
    (lambda p: _drop_attribute(p / "zarr.json", "jetgeo_store"), "layout record .*written by an older jetgeo"),
])
def test_zarr_structural_damage_is_named(tmp_path, damage, message):
    path = tmp_path / "s.zarr"
    run(path)
    damage(path)
    with pytest.raises(InputError, match=message):
        run(path)
    assert not (tmp_path / "s.zarr.lock").is_file()   # a refusal releases the lock


def test_zarr_changed_member_ids_or_parameters_are_named(tmp_path):
    path = tmp_path / "s.zarr"
    run(path)
    ids = zarr.open_array(path / "member", mode="r+")
    ids[:] = ids[:][::-1]
    with pytest.raises(InputError, match="member ids are not 0 … 5"):
        run(path)
    ids[:] = ids[:][::-1]
    radius = zarr.open_array(path / "R", mode="r+")
    radius[0] = 3.0
    with pytest.raises(InputError, match="the values of the member coordinate 'R' are not the study's"):
        run(path)
    radius[0] = 0.5
    _same_data(run(path))                             # undone: the store is intact again


def _interrupted_nc(tmp_path, after: int = 2) -> Path:
    path = tmp_path / "s.nc"

    class Stop(Exception):
        pass

    seen = []

    def stop(info):
        seen.append(info)
        if len(seen) == after:
            raise Stop

    with pytest.raises(Stop):
        run(path, callback=stop)
    return path


def test_netcdf_chunk_copied_over_another_is_recomputed_not_duplicated(tmp_path):
    path = _interrupted_nc(tmp_path)
    parts = tmp_path / "s.nc.parts"
    shutil.copyfile(parts / "chunk_000000.nc", parts / "chunk_000001.nc")
    ds, seen, repairs = _recomputed(path)
    assert seen == [1, 2] and len(repairs) == 1 and "members 2 … 3" in repairs[0]
    assert list(ds.member.values) == list(range(6))
    _same_data(ds)


def test_netcdf_chunk_missing_a_variable_is_recomputed(tmp_path):
    path = _interrupted_nc(tmp_path)
    f = tmp_path / "s.nc.parts" / "chunk_000000.nc"
    with xr.open_dataset(f) as part:
        damaged = part.load().drop_vars("energy")
    f.unlink()
    damaged.to_netcdf(f)
    ds, seen, repairs = _recomputed(path)
    assert seen == [0, 2] and "['energy'] are missing" in repairs[0]
    _same_data(ds)


@pytest.mark.parametrize("damage", [
    lambda f: f.write_bytes(b"garbage"),
    lambda f: f.write_bytes(f.with_name("chunk_000000.nc").read_bytes()[:400]),
    lambda f: (f.unlink(), f.mkdir()),
], ids=["garbage", "truncated", "directory"])
def test_netcdf_unreadable_chunk_file_is_recomputed(tmp_path, damage):
    path = _interrupted_nc(tmp_path)
    damage(tmp_path / "s.nc.parts" / "chunk_000001.nc")
    ds, seen, repairs = _recomputed(path)
    assert seen == [1, 2] and len(repairs) == 1 and "unreadable" in repairs[0]
    _same_data(ds)


@pytest.mark.parametrize("name, message", [
    ("chunk_000009.nc", "outside the study's chunks 0 … 2"),
    ("chunk_9.nc", "'chunk_9.nc' is no chunk file"),
    ("notes.txt", "'notes.txt' is no chunk file"),
    ("layout.json", "layout.json is missing or unreadable"),   # replaced by a chunk's bytes
])
def test_netcdf_stray_files_are_named(tmp_path, name, message):
    path = _interrupted_nc(tmp_path, after=1)
    parts = tmp_path / "s.nc.parts"
    shutil.copyfile(parts / "chunk_000000.nc", parts / name)
    with pytest.raises(InputError, match=message):
        run(path)


def test_netcdf_finished_file_with_other_members_is_named(tmp_path):
    path = tmp_path / "s.nc"
    _same_data(run(path))
    with xr.open_dataset(path) as ds:
        doubled = xr.concat([ds.isel(member=slice(0, 3)), ds.isel(member=slice(0, 3))], dim="member").load()
        no_energy = ds.drop_vars("energy").load()
    path.unlink()
    doubled.to_netcdf(path)
    with pytest.raises(InputError, match="member ids are not 0 … 5"):
        run(path)
    path.unlink()
    no_energy.to_netcdf(path)
    with pytest.raises(InputError, match=r"the variables \['energy'\] are missing"):
        run(path)


@pytest.mark.parametrize("suffix", [".nc", ".zarr"])
def test_statuses_and_messages_of_later_chunks_are_kept_whole(tmp_path, suffix):
    """A member with bad data (status "invalid", a long message) in the last chunk, the first chunk
    all "ok": the joined NetCDF file once cut every string to the first chunk's width ("in")."""
    cs, members, kw = study()
    bad = grid(R=[0.5, 0.75, 1.0, 1.25, 1.5, float("nan")])
    memory = ensemble(cs, bad, (0.0, 1.0), **kw)
    assert list(memory.status.values) == ["ok"] * 5 + ["invalid"]
    stored = ensemble(cs, bad, (0.0, 1.0), store=tmp_path / f"s{suffix}", **kw)
    assert list(stored.status.values) == ["ok"] * 5 + ["invalid"]
    assert list(stored.message.values) == list(memory.message.values)


def test_cli_resume_with_a_stray_chunk_file_exits_2_with_one_line(tmp_path, capsys):
    out = tmp_path / "study.nc"
    code, _, err = sweep_here([*SWEEP, "--out", str(out)], capsys)
    assert code == 0, err
    # the state of this study interrupted before its (single) chunk was written, plus a stray file
    with xr.open_dataset(out) as ds:
        fp, layout = ds.attrs["fingerprint"], ensemble_store._variables_layout(ds)
    out.unlink()
    parts = tmp_path / "study.nc.parts"
    parts.mkdir()
    (parts / "fingerprint").write_text(fp + "\n")
    (parts / "layout.json").write_text(json.dumps(layout))
    (parts / "chunk_x.nc").write_text("not a chunk")
    r = cli(*SWEEP, "--out", str(out))
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "'chunk_x.nc' is no chunk file" in r.stderr and r.stderr.count("\n") == 1
    (parts / "chunk_x.nc").unlink()
    code, stdout, err = sweep_here([*SWEEP, "--out", str(out)], capsys)
    assert code == 0 and "ok 6" in stdout, err
