"""Incremental, resumable storage of an ensemble: a Zarr store or a NetCDF file.

A study is cut into chunks of members; each finished chunk is written at once, so an
interrupted study (a crash, Ctrl-C, a lost cluster) loses at most the chunks in flight.
Running the same call again reads which chunks are done and computes only the others.

* ``*.zarr``: one Zarr store holding the whole dataset from the start (NaN / "pending" where
  nothing is computed yet); a chunk's members are written into their region, then the chunk's
  digest is recorded in ``chunk_digest`` and the chunk is marked in ``chunk_done``.
  ``xarray.open_zarr`` reads a partial study too.
* ``*.nc``: NetCDF cannot grow safely in place, so each chunk is written to its own file in the
  directory ``FILE.nc.parts`` (each file written to a temporary name and renamed: a file that
  exists is complete); when all are there they are joined into ``FILE.nc`` (again written aside
  and renamed) and the directory is removed.

**One run at a time.**  A store is locked while a study runs on it: the file ``STORE.lock``
beside it, created with ``O_CREAT | O_EXCL`` and holding the owner's pid, host and process
start time.  A second run on the same store refuses (:class:`~jetgeo.errors.InputError`, naming
the owner); a lock whose process is gone (a run killed by SIGKILL) is taken over.

**Atomic creation.**  The Zarr store and the NetCDF chunk directory are built under a temporary
name beside the target and renamed into place: a run killed while creating leaves no store (the
next run starts afresh) or a complete one, never a store without its chunk index.

**Validated resume.**  A store remembers the study's fingerprint (system, settings, members,
chunk size) and its layout (variables, dimensions, shapes); opening it for a different study, or
finding a variable missing, a shape changed, the member ids or parameter values altered, or a
file that is no part of the store, raises :class:`~jetgeo.errors.InputError` saying exactly what
is wrong.  A finished chunk whose data do not match its digest (Zarr) or whose file is unreadable
or holds other members or variables (NetCDF) is recomputed, with a :class:`StoreRepairWarning`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import socket
import time
import warnings
from pathlib import Path

import numpy as np

from ..errors import InputError

__all__ = ["open_store", "study_fingerprint", "StoreLock", "StoreRepairWarning", "process_alive",
           "process_start_time"]

#: seconds after which an empty lock file (its creator died between creating and writing it) is stale
_EMPTY_LOCK_GRACE = 10.0
_LAYOUT_ATTR = "jetgeo_store"
_INTERNAL = ("chunk_done", "chunk_digest")
_HELD: set = set()   # the lock files held by this process
#: what reading a damaged chunk file raises: a codec's error (zstd: RuntimeError), a wrong size
#: (ValueError), an unreadable file (OSError)
_UNDECODABLE = (RuntimeError, ValueError, OSError)


class StoreRepairWarning(UserWarning):
    """A finished chunk of a study store was found damaged and is computed again."""


def study_fingerprint(model_fp: str, settings: dict, full, P, chunk_size: int) -> str:
    """sha256 over the compiled model, the integration settings, the member data and the chunking.

    Parameters
    ----------
    model_fp : str
        The compiled model's fingerprint.
    settings : dict
        The integration settings ({name: value}; ``t_eval`` an array).
    full, P : array_like
        The members' initial states and parameters.
    chunk_size : int
        Members per chunk.

    Returns
    -------
    str
        The hexadecimal digest.

    Examples
    --------
    >>> len(study_fingerprint("m", {"rtol": 1e-9}, [[0.0]], [[1.0]], 1))
    64
    """
    h = hashlib.sha256(model_fp.encode())
    for k in sorted(settings):
        v = settings[k]
        h.update(k.encode())
        h.update(np.asarray(v, dtype=float).tobytes() if k == "t_eval" else repr(v).encode())
    h.update(np.ascontiguousarray(full, dtype=float).tobytes())
    h.update(np.ascontiguousarray(P, dtype=float).tobytes())
    h.update(str(int(chunk_size)).encode())
    return h.hexdigest()


# ----------------------------------------------------------------------------------------------
# the lock
# ----------------------------------------------------------------------------------------------
def process_start_time(pid: int) -> str | None:
    """The start time of process ``pid`` (clock ticks since boot, from Linux ``/proc``), or None
    where it cannot be read.  With the pid it names one process, even after the pid is reused.

    Parameters
    ----------
    pid : int
        A process id.

    Returns
    -------
    str or None
        Field 22 of ``/proc/PID/stat``.

    Examples
    --------
    >>> process_start_time(os.getpid()) == process_start_time(os.getpid())
    True
    """
    stat = _proc_stat(pid)
    fields = stat.split() if stat is not None else []
    return fields[19] if len(fields) > 19 else None


def _proc_stat(pid: int) -> str | None:
    """The fields of ``/proc/PID/stat`` after "pid (comm) " (the state first), or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    return stat[stat.rfind(")") + 2:]


def process_alive(pid: int, started: str | None = None) -> bool:
    """Whether process ``pid`` of this host still runs: it exists, is not a zombie, and (when
    ``started`` is given and ``/proc`` can tell) it is the process started then, not a later one
    that reuses the pid.  Where this cannot be told (not POSIX) the answer is True.

    Parameters
    ----------
    pid : int
        A process id.
    started : str, optional
        Its :func:`process_start_time` when it was known to run.

    Returns
    -------
    bool

    Examples
    --------
    >>> process_alive(os.getpid(), process_start_time(os.getpid()))
    True
    """
    if os.name != "posix":
        return True
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        pass
    stat = _proc_stat(pid)
    if stat is not None and stat[:1] == "Z":
        return False
    return started is None or process_start_time(pid) in (None, started)


def _alive(owner: dict, lock_path: Path) -> bool:
    """Whether the process that wrote a lock may still run (True when it cannot be told)."""
    if owner.get("host") != socket.gethostname() or os.name != "posix":
        return True
    pid = owner.get("pid")
    if not isinstance(pid, int) or pid <= 0:
        return False
    if pid == os.getpid():   # this process: alive only if one of its StoreLocks holds it
        return lock_path in _HELD
    started = owner.get("started")
    return process_alive(pid, started if isinstance(started, str) else None)


class StoreLock:
    """An exclusive lock on a study store: the file ``STORE.lock`` beside it.

    The file is created with ``O_CREAT | O_EXCL`` (so exactly one process creates it) and holds
    the owner's pid, host and process start time as JSON.  A lock whose owner is gone (its pid
    dead, a zombie, or reused by a later process) is stale and taken over: renamed aside, checked
    to be the stale one, removed, and created afresh.

    Parameters
    ----------
    target : path
        The store (``*.zarr`` or ``*.nc``) to lock.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     d = Path(tmp)
    ...     with StoreLock(d / "s.zarr"):
    ...         print((d / "s.zarr.lock").exists())
    ...     print((d / "s.zarr.lock").exists())
    True
    False
    """

    def __init__(self, target) -> None:
        target = Path(os.fspath(target))
        self.target = target
        self.path = target.with_name(target.name + ".lock")
        self._mine: str | None = None

    def acquire(self) -> StoreLock:
        """Take the lock or raise :class:`~jetgeo.errors.InputError` naming the run that holds it.

        Returns
        -------
        StoreLock
            ``self``, locked.
        """
        me = json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                         "started": process_start_time(os.getpid())})
        for _ in range(5):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                if self.path.is_symlink() or (self.path.exists() and not self.path.is_file()):
                    raise InputError(f"ensemble: cannot lock the store {self.target}: {self.path} exists and is "
                                     "not a lock file; remove it") from None
                raw = self._read(self.path)
                if raw is None:          # removed in between: try again
                    continue
                owner = self._parse(raw)
                if owner is None:        # being written by its creator, or left empty by a dead one
                    if self._age() < _EMPTY_LOCK_GRACE:
                        raise self._busy({}) from None
                elif _alive(owner, self.path):
                    raise self._busy(owner) from None
                self._take_over(raw)
                continue
            except OSError as exc:
                raise InputError(f"ensemble: cannot lock the store {self.target}: {exc}") from None
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(me + "\n")
                f.flush()
                os.fsync(f.fileno())
            self._mine = me
            _HELD.add(self.path)
            return self
        raise InputError(f"ensemble: cannot lock the store {self.target}: {self.path} keeps changing "
                         "(another run is starting on it); try again")

    def release(self) -> None:
        """Remove the lock file if this object holds it."""
        if self._mine is None:
            return
        raw = self._read(self.path)
        if raw is not None and raw.strip() == self._mine:
            self.path.unlink()
        self._mine = None
        _HELD.discard(self.path)

    def __enter__(self) -> StoreLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()

    @staticmethod
    def _read(p: Path) -> str | None:
        try:
            return p.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError):
            return ""

    @staticmethod
    def _parse(raw: str) -> dict | None:
        try:
            owner = json.loads(raw)
        except ValueError:
            return None
        return owner if isinstance(owner, dict) else None

    def _age(self) -> float:
        try:
            return time.time() - self.path.stat().st_mtime
        except OSError:
            return 0.0

    def _busy(self, owner: dict) -> InputError:
        who = (f"pid {owner.get('pid')} on {owner.get('host')}" if owner else "a run that is starting")
        return InputError(f"ensemble: the store {self.target} is in use by {who} (lock file {self.path}); "
                          "wait for that run to finish, or remove the lock file if it is gone")

    def _take_over(self, stale: str) -> None:
        """Remove the stale lock whose content is ``stale``, unless another run replaced it meanwhile."""
        aside = self.path.with_name(f"{self.path.name}.stale-{os.getpid()}")
        try:
            os.rename(self.path, aside)
        except FileNotFoundError:
            return                      # another run took it over first
        except OSError as exc:
            raise InputError(f"ensemble: cannot take over the stale lock {self.path} of the store {self.target}: "
                             f"{exc}") from None
        if self._read(aside) == stale:
            aside.unlink()
            return
        try:                            # a fresh lock of the run that took over first: put it back
            os.link(aside, self.path)
        except FileExistsError:
            pass
        aside.unlink()


# ----------------------------------------------------------------------------------------------
# opening a store
# ----------------------------------------------------------------------------------------------
def open_store(path, fingerprint: str, n_chunks: int, n_members: int, chunk_size: int, member_coords: dict):
    """The store at ``path`` for a study of ``n_members`` in ``n_chunks`` chunks of ``chunk_size``,
    locked for this run (``close()`` releases it).

    Parameters
    ----------
    path : path
        ``*.zarr`` (a Zarr store) or ``*.nc`` (a NetCDF file, its chunks kept beside it).
    fingerprint : str
        The study's fingerprint (:func:`study_fingerprint`).
    n_chunks, n_members, chunk_size : int
        The chunking of the study.
    member_coords : dict
        {name: values over all members} (the parameters), written with the layout.

    Returns
    -------
    ZarrStore or NetCDFStore
        The store, validated against the fingerprint and its layout; ``done()`` is the set of
        finished chunks whose data are intact.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     st = open_store(Path(tmp) / "s.nc", "fp", 2, 4, 2, {"a": np.arange(4.0)})
    ...     print(st.done())
    ...     st.close()
    set()
    """
    p = Path(os.fspath(path))
    layout = (n_chunks, n_members, chunk_size, dict(member_coords))
    if p.suffix == ".zarr":
        kind = ZarrStore
    elif p.suffix in (".nc", ".nc4", ".netcdf"):
        kind = NetCDFStore
    else:
        raise InputError(f"ensemble: store must be a path ending in .zarr or .nc, got {os.fspath(path)!r}")
    try:
        p.parent.mkdir(parents=True, exist_ok=True)   # as a new store's directory always was
    except OSError as exc:
        raise InputError(f"ensemble: cannot create the directory of the store {p}: {exc}") from None
    lock = StoreLock(p).acquire()
    try:
        return kind(p, fingerprint, layout, lock)
    except BaseException:
        lock.release()
        raise


def _mismatch(p: Path) -> InputError:
    return InputError(f"ensemble: {p} holds a different study (other system, settings, members or chunk size); "
                      "remove it or choose another store")


def _damaged(p: Path, what: str) -> InputError:
    return InputError(f"ensemble: the store {p} is damaged: {what}; remove it and run the study again")


def _atomic_netcdf(ds, target: Path) -> None:
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        ds.to_netcdf(tmp)
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()


def _clean(ds):
    ds = ds.drop_vars([v for v in _INTERNAL if v in ds.variables])
    ds.attrs.pop(_LAYOUT_ATTR, None)
    return ds


def _variables_layout(ds) -> dict:
    """{name: [dims, sizes of the dims other than member]} of a chunk's data variables."""
    return {name: [list(var.dims), [int(ds.sizes[d]) for d in var.dims if d != "member"]]
            for name, var in ds.data_vars.items() if name not in _INTERNAL}


def _is_layout(layout) -> bool:
    """Whether ``layout`` has the form of :func:`_variables_layout` (as read back from JSON)."""
    return isinstance(layout, dict) and all(
        isinstance(v, list) and len(v) == 2 and all(isinstance(d, str) for d in v[0])
        and all(isinstance(n, int) for n in v[1]) for v in layout.values())


def _same_values(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "fc" and b.dtype.kind in "fc":
        return bool(np.array_equal(a, b, equal_nan=True))
    return bool(np.array_equal(a, b))


def _remove(p: Path) -> None:
    if p.is_dir() and not p.is_symlink():
        shutil.rmtree(p)
    elif p.exists() or p.is_symlink():
        p.unlink()


class _Store:
    """What both kinds share: the lock, the chunking, the set of intact finished chunks."""

    def __init__(self, path: Path, fingerprint: str, layout: tuple, lock: StoreLock) -> None:
        self.path, self.fp, self.lock = path, fingerprint, lock
        self.n_chunks, self.n_members, self.chunk_size, self.member_coords = layout
        self._done: set = set()

    def _members(self, i: int) -> slice:
        start = i * self.chunk_size
        return slice(start, min(self.n_members, start + self.chunk_size))

    def done(self) -> set:
        """The finished chunks whose data are intact (validated when the store was opened)."""
        return set(self._done)

    def close(self) -> None:
        """Release the store's lock."""
        self.lock.release()

    def _repair(self, i: int, why: str) -> None:
        warnings.warn(StoreRepairWarning(f"ensemble: chunk {i} of {self.path} is damaged ({why}); "
                                         "computing it again"), stacklevel=6)   # ensemble()'s caller


class ZarrStore(_Store):
    """The whole dataset in one Zarr store, filled region by region (see the module docstring)."""

    def __init__(self, path: Path, fingerprint: str, layout: tuple, lock: StoreLock) -> None:
        super().__init__(path, fingerprint, layout, lock)
        self._created = False
        self._layout: dict | None = None
        if path.exists() or path.is_symlink():
            self._validate()
            self._created = True

    # -- opening: the fingerprint, the layout, every finished chunk ----------------------------
    def _open(self):
        import xarray as xr

        try:
            return xr.open_zarr(self.path, consolidated=False)
        except (*_UNDECODABLE, KeyError, TypeError) as exc:
            raise InputError(f"ensemble: {self.path} exists but is not a readable Zarr store: {exc}") from exc

    def _validate(self) -> None:
        p = self.path
        ds = self._open()
        if ds.attrs.get("fingerprint") != self.fp:
            raise _mismatch(p)
        try:
            layout = json.loads(ds.attrs[_LAYOUT_ATTR])
            variables = layout["variables"]
            if not _is_layout(variables):
                raise TypeError
        except (KeyError, ValueError, TypeError):
            raise _damaged(p, f"its layout record (attribute {_LAYOUT_ATTR!r}) is missing or unreadable "
                              "(written by an older jetgeo?)") from None
        if [layout.get("n_chunks"), layout.get("n_members"), layout.get("chunk_size")] != \
                [self.n_chunks, self.n_members, self.chunk_size]:
            raise _mismatch(p)
        for name, (dims, sizes) in variables.items():
            if name not in ds.data_vars:
                raise _damaged(p, f"the variable {name!r} is missing")
            var = ds[name]
            it = iter(sizes)
            shape = [self.n_members if d == "member" else next(it, -1) for d in dims]
            if list(var.dims) != list(dims) or list(var.shape) != shape or next(it, None) is not None:
                raise _damaged(p, f"the variable {name!r} has dims {var.dims} and shape {var.shape}, "
                                  f"expected {tuple(dims)} and {tuple(shape)}")
        for name in _INTERNAL:
            if name not in ds.data_vars:
                raise _damaged(p, f"the chunk index variable {name!r} is missing")
            if ds[name].dims != ("chunk",) or ds[name].shape != (self.n_chunks,):
                raise _damaged(p, f"the chunk index {name!r} has shape {ds[name].shape}, "
                                  f"expected ({self.n_chunks},)")
        extra = sorted(set(ds.data_vars) - set(variables) - set(_INTERNAL))
        if extra:
            raise _damaged(p, f"it holds variables that are no part of the study: {extra}")
        for name, values in {"member": np.arange(self.n_members), **self.member_coords}.items():
            if name not in ds.coords:
                raise _damaged(p, f"the member coordinate {name!r} is missing")
            try:
                stored = ds[name].values
            except _UNDECODABLE as exc:
                raise _damaged(p, f"the member coordinate {name!r} cannot be read: {exc}") from None
            if not _same_values(stored, values):
                raise _damaged(p, f"its member ids are not 0 … {self.n_members - 1}" if name == "member" else
                                  f"the values of the member coordinate {name!r} are not the study's")
        self._stray_chunk_files(ds)
        self._layout = variables
        for i in range(self.n_chunks):
            try:   # chunk by chunk: one chunk file that cannot be decoded damages that chunk only
                if not bool(ds["chunk_done"][i].values):
                    continue
                intact = str(ds["chunk_digest"][i].values) == self._digest(ds, i)
                why = "its data do not match the digest recorded when it was written"
            except _UNDECODABLE as exc:
                intact, why = False, f"a chunk file cannot be decoded: {exc}"
            if intact:
                self._done.add(i)
            else:
                self._repair(i, why)

    def _stray_chunk_files(self, ds) -> None:
        """Refuse files in the store's arrays outside their chunk grid (Zarr v3 default key encoding)."""
        for entry in sorted(self.path.iterdir()):
            meta = entry / "zarr.json"
            if entry.name == "zarr.json":
                continue
            if not meta.is_file():
                raise _damaged(self.path, f"{entry.name!r} is no array of the store")
            try:
                m = json.loads(meta.read_text(encoding="utf-8"))
                shape = m["shape"]
                chunks = m["chunk_grid"]["configuration"]["chunk_shape"]
                enc = m.get("chunk_key_encoding", {})
            except (OSError, ValueError, KeyError, TypeError):
                raise _damaged(self.path, f"the metadata of {entry.name!r} are unreadable") from None
            if enc.get("name") != "default" or enc.get("configuration", {}).get("separator", "/") != "/":
                continue
            grid = [max(1, -(-int(s) // int(c))) for s, c in zip(shape, chunks)]
            root = entry / "c"
            for dirpath, _dirs, files in os.walk(root):
                for f in files:
                    rel = Path(dirpath, f).relative_to(root).parts
                    ok = len(rel) == max(1, len(grid)) and all(r.isdigit() for r in rel)
                    if ok and grid:
                        ok = all(int(r) < g for r, g in zip(rel, grid))
                    if not ok:
                        raise _damaged(self.path, f"the file {Path(dirpath, f).relative_to(self.path)} is outside "
                                                  f"the chunk grid {tuple(grid)} of {entry.name!r}")

    def _digest(self, ds, i: int) -> str:
        """sha256 of chunk ``i``'s data as stored, bound to the study and the chunk's place."""
        sl = self._members(i)
        h = hashlib.sha256(f"{self.fp}:{i}:{sl.start}:{sl.stop}".encode())
        for name in sorted(self._layout or {}):
            v = np.asarray(ds[name].isel(member=sl).values)
            h.update(name.encode() + b"\0")
            if v.dtype.kind in "OUS":
                h.update("\x1f".join(str(x) for x in v.ravel()).encode())
            else:
                h.update(str(v.dtype).encode() + np.ascontiguousarray(v).tobytes())
        return h.hexdigest()

    # -- writing ---------------------------------------------------------------------------------
    def complete(self) -> bool:
        return self._created and len(self._done) == self.n_chunks

    def _create(self, ds) -> None:
        """Build the empty store under a temporary name beside the target, then rename it."""
        n_chunks, n_members, chunk_size = self.n_chunks, self.n_members, self.chunk_size
        import xarray as xr

        full_coords = {k: v for k, v in ds.coords.items() if "member" not in v.dims}
        tmpl = {}
        enc = {}
        for name, var in ds.data_vars.items():
            shape = tuple(n_members if d == "member" else ds.sizes[d] for d in var.dims)
            if var.dtype.kind in "fc":
                fill = np.full(shape, np.nan, dtype=var.dtype)
            elif var.dtype.kind in "iu":
                fill = np.full(shape, -1, dtype=var.dtype)
            else:
                fill = np.full(shape, "pending" if name == "status" else "", dtype=object)
            tmpl[name] = (var.dims, fill, var.attrs)
            enc[name] = {"chunks": tuple(chunk_size if d == "member" else ds.sizes[d] for d in var.dims)}
        self._layout = _variables_layout(ds)
        tmpl["chunk_done"] = (("chunk",), np.zeros(n_chunks, dtype=bool))
        enc["chunk_done"] = {"chunks": (1,)}
        tmpl["chunk_digest"] = (("chunk",), np.full(n_chunks, "", dtype=object))
        enc["chunk_digest"] = {"chunks": (1,)}
        member_coords = {k: ("member", np.asarray(v)) for k, v in self.member_coords.items()}
        coords = {"member": np.arange(n_members, dtype=np.int64), **full_coords, **member_coords}
        attrs = {**ds.attrs, _LAYOUT_ATTR: json.dumps({"n_chunks": n_chunks, "n_members": n_members,
                                                       "chunk_size": chunk_size, "variables": self._layout})}
        tmp = self.path.with_name(f".{self.path.name}.creating")
        _remove(tmp)   # left by a run killed while creating (this run holds the lock)
        xr.Dataset(tmpl, coords=coords, attrs=attrs).to_zarr(tmp, mode="w-", encoding=enc, consolidated=False,
                                                            zarr_format=3)
        os.rename(tmp, self.path)
        self._created = True

    def write(self, i: int, ds) -> None:
        """Write chunk ``i`` (its dataset ``ds``) into its region, then its digest and its flag."""
        import xarray as xr

        if not self._created:
            self._create(ds)
        sl = self._members(i)
        part = ds.drop_vars([k for k, v in ds.variables.items() if "member" not in v.dims])
        part.to_zarr(self.path, region={"member": sl}, consolidated=False)
        digest = self._digest(self._open(), i)   # of the data as stored (read back)
        xr.Dataset({"chunk_digest": (("chunk",), np.array([digest], dtype=object))}).to_zarr(
            self.path, region={"chunk": slice(i, i + 1)}, consolidated=False)
        xr.Dataset({"chunk_done": (("chunk",), np.array([True]))}).to_zarr(
            self.path, region={"chunk": slice(i, i + 1)}, consolidated=False)
        self._done.add(i)

    def result(self):
        """The finished study (the store's internal chunk index dropped); releases the lock."""
        try:
            return _clean(self._open().load())
        finally:
            self.close()


class NetCDFStore(_Store):
    """One NetCDF file per finished chunk beside the target, joined at the end (module docstring)."""

    _PART = re.compile(r"chunk_(\d{6})\.nc")
    _TMP = re.compile(r"\.chunk_\d{6}\.nc\.\d+\.tmp")

    def __init__(self, path: Path, fingerprint: str, layout: tuple, lock: StoreLock) -> None:
        super().__init__(path, fingerprint, layout, lock)
        self.parts = path.with_name(path.name + ".parts")
        self._layout: dict | None = None
        if path.exists():
            self._validate_final()
            if self.parts.exists():   # a run killed after joining, before removing the chunk files
                shutil.rmtree(self.parts)
        elif self.parts.exists():
            self._validate_parts()

    def _read_layout(self) -> dict:
        try:
            layout = json.loads((self.parts / "layout.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            layout = None
        if not _is_layout(layout):
            raise _damaged(self.parts, "its layout record layout.json is missing or unreadable "
                                       "(written by an older jetgeo?)")
        return layout

    def _validate_final(self) -> None:
        import xarray as xr

        try:
            with xr.open_dataset(self.path) as ds:
                fp = ds.attrs.get("fingerprint")
                recorded = ds.attrs.get(_LAYOUT_ATTR)
                got = _variables_layout(ds)
                coords = {n: ds[n].values for n in ("member", *self.member_coords) if n in ds.coords}
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            raise InputError(f"ensemble: {self.path} exists but is not a readable NetCDF file: {exc}") from exc
        if fp != self.fp:
            raise _mismatch(self.path)
        if "member" not in coords or not _same_values(coords["member"], np.arange(self.n_members)):
            raise _damaged(self.path, f"its member ids are not 0 … {self.n_members - 1}")
        try:
            layout = json.loads(recorded)
        except (TypeError, ValueError):
            layout = None
        if not _is_layout(layout):
            raise _damaged(self.path, f"its layout record (attribute {_LAYOUT_ATTR!r}) is missing or unreadable "
                                      "(written by an older jetgeo?)")
        missing = sorted(set(layout) - set(got))
        if missing:
            raise _damaged(self.path, f"the variables {missing} are missing")
        if got != layout:
            raise _damaged(self.path, f"its variables {sorted(got)} or their shapes are not the study's")
        for name, values in self.member_coords.items():
            if name not in coords or not _same_values(coords[name], values):
                raise _damaged(self.path, f"the member coordinate {name!r} is missing or not the study's")
        self._done = set(range(self.n_chunks))

    def _validate_parts(self) -> None:
        try:
            fp = (self.parts / "fingerprint").read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            fp = None
        if fp != self.fp:
            raise _mismatch(self.parts)
        self._layout = self._read_layout()
        for f in sorted(self.parts.iterdir()):
            if f.name in ("fingerprint", "layout.json"):
                continue
            if self._TMP.fullmatch(f.name):
                f.unlink()           # a chunk whose writer was killed (this run holds the lock)
                continue
            m = self._PART.fullmatch(f.name)
            if m is None:
                raise _damaged(self.parts, f"{f.name!r} is no chunk file of the study")
            i = int(m.group(1))
            if i >= self.n_chunks:
                raise _damaged(self.parts, f"{f.name!r} is outside the study's chunks 0 … {self.n_chunks - 1}")
            why = self._check_part(f, i)
            if why is None:
                self._done.add(i)
            else:
                self._repair(i, why)
                _remove(f)

    def _check_part(self, f: Path, i: int) -> str | None:
        """Why the file of chunk ``i`` is not that chunk's data (None when it is)."""
        import xarray as xr

        try:
            with xr.open_dataset(f) as ds:
                if ds.attrs.get("fingerprint") != self.fp:
                    return "it belongs to another study"
                sl = self._members(i)
                if "member" not in ds.coords or not _same_values(ds["member"].values, np.arange(sl.start, sl.stop)):
                    return f"it does not hold the members {sl.start} … {sl.stop - 1}"
                got = _variables_layout(ds)
                if got != self._layout:
                    missing = sorted(set(self._layout or {}) - set(got))
                    return (f"the variables {missing} are missing" if missing else
                            f"its variables {sorted(got)} or their shapes are not the study's")
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            return f"unreadable: {exc}"
        return None

    def _chunk_file(self, i: int) -> Path:
        return self.parts / f"chunk_{i:06d}.nc"

    def complete(self) -> bool:
        return self.path.exists()

    def write(self, i: int, ds) -> None:
        """Write chunk ``i`` to its own file (atomically); join the study when every chunk is there."""
        if not self.parts.exists():
            self._layout = _variables_layout(ds)
            tmp = self.parts.with_name(f".{self.parts.name}.creating")
            _remove(tmp)   # left by a run killed while creating (this run holds the lock)
            tmp.mkdir()
            (tmp / "fingerprint").write_text(self.fp + "\n", encoding="utf-8")
            (tmp / "layout.json").write_text(json.dumps(self._layout), encoding="utf-8")
            os.rename(tmp, self.parts)
        _atomic_netcdf(ds, self._chunk_file(i))
        self._done.add(i)
        if len(self._done) == self.n_chunks:
            self._join()

    def _join(self) -> None:
        import xarray as xr

        parts = []
        for i in range(self.n_chunks):
            with xr.open_dataset(self._chunk_file(i)) as part:
                parts.append(part.load())
        ds = xr.concat(parts, dim="member", data_vars="all", coords="different", compat="equals", join="exact",
                       combine_attrs="override")
        # the encoding read from the first chunk file (e.g. strings of width 2 for "ok") would cut
        # longer values of later chunks ("invalid" → "in") when written: let xarray choose afresh
        ds = ds.drop_encoding()
        ds.attrs[_LAYOUT_ATTR] = json.dumps(self._layout)
        _atomic_netcdf(ds, self.path)
        shutil.rmtree(self.parts)

    def result(self):
        """The finished study (joining the chunk files if a run was interrupted while joining);
        releases the lock."""
        import xarray as xr

        try:
            if not self.path.exists() and len(self._done) == self.n_chunks:  # joining was interrupted
                self._join()
            with xr.open_dataset(self.path) as ds:
                return _clean(ds.load())
        finally:
            self.close()
