"""Incremental, resumable storage of an ensemble: a Zarr store or a NetCDF file.

A study is cut into chunks of members; each finished chunk is written at once, so an
interrupted study (a crash, Ctrl-C, a lost cluster) loses at most the chunks in flight.
Running the same call again reads which chunks are done and computes only the others.

* ``*.zarr``: one Zarr store holding the whole dataset from the start (NaN / "pending" where
  nothing is computed yet); a chunk's members are written into their region, then the chunk
  is marked in the variable ``chunk_done``.  ``xarray.open_zarr`` reads a partial study too.
* ``*.nc``: NetCDF cannot grow safely in place, so each chunk is written to its own file in the
  directory ``FILE.nc.parts`` (each file written to a temporary name and renamed: a file that
  exists is complete); when all are there they are joined into ``FILE.nc`` (again written aside
  and renamed) and the directory is removed.

A store remembers the study's fingerprint (system, settings, members, chunk size): opening it
for a different study raises :class:`~jetgeo.errors.InputError` instead of mixing the two.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import numpy as np

from ..errors import InputError

__all__ = ["open_store", "study_fingerprint"]


def study_fingerprint(model_fp: str, settings: dict, full, P, chunk_size: int) -> str:
    """sha256 over the compiled model, the integration settings, the member data and the chunking."""
    h = hashlib.sha256(model_fp.encode())
    for k in sorted(settings):
        v = settings[k]
        h.update(k.encode())
        h.update(np.asarray(v, dtype=float).tobytes() if k == "t_eval" else repr(v).encode())
    h.update(np.ascontiguousarray(full, dtype=float).tobytes())
    h.update(np.ascontiguousarray(P, dtype=float).tobytes())
    h.update(str(int(chunk_size)).encode())
    return h.hexdigest()


def open_store(path, fingerprint: str, n_chunks: int, n_members: int, chunk_size: int, member_coords: dict):
    """The store at ``path`` for a study of ``n_members`` in ``n_chunks`` chunks of ``chunk_size``;
    ``member_coords`` {name: values over all members} (the parameters) are written with the layout."""
    p = Path(os.fspath(path))
    layout = (n_chunks, n_members, chunk_size, dict(member_coords))
    if p.suffix == ".zarr":
        return ZarrStore(p, fingerprint, layout)
    if p.suffix in (".nc", ".nc4", ".netcdf"):
        return NetCDFStore(p, fingerprint, layout)
    raise InputError(f"ensemble: store must be a path ending in .zarr or .nc, got {os.fspath(path)!r}")


def _mismatch(p: Path) -> InputError:
    return InputError(f"ensemble: {p} holds a different study (other system, settings, members or chunk size); "
                      "remove it or choose another store")


def _atomic_netcdf(ds, target: Path) -> None:
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        ds.to_netcdf(tmp)
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()


def _clean(ds):
    return ds.drop_vars([v for v in ("chunk_done",) if v in ds.variables])


class ZarrStore:
    """The whole dataset in one Zarr store, filled region by region (see the module docstring)."""

    def __init__(self, path: Path, fingerprint: str, layout: tuple) -> None:
        self.path, self.fp = path, fingerprint
        self.n_chunks, self.n_members, self.chunk_size, self.member_coords = layout
        self._created = False
        if path.exists():
            import xarray as xr

            try:
                ds = xr.open_zarr(path, consolidated=False)
            except (OSError, ValueError, KeyError) as exc:
                raise InputError(f"ensemble: {path} exists but is not a readable Zarr store: {exc}") from exc
            if ds.attrs.get("fingerprint") != fingerprint:
                raise _mismatch(path)
            self._created = True

    def done(self) -> set:
        if not self._created:
            return set()
        import xarray as xr

        flags = xr.open_zarr(self.path, consolidated=False)["chunk_done"].values
        return {int(i) for i in np.flatnonzero(flags)}

    def complete(self) -> bool:
        return self._created and len(self.done()) == self.n_chunks

    def _create(self, ds) -> None:
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
        tmpl["chunk_done"] = (("chunk",), np.zeros(n_chunks, dtype=bool))
        enc["chunk_done"] = {"chunks": (1,)}
        member_coords = {k: ("member", np.asarray(v)) for k, v in self.member_coords.items()}
        coords = {"member": np.arange(n_members, dtype=np.int64), **full_coords, **member_coords}
        xr.Dataset(tmpl, coords=coords, attrs=ds.attrs).to_zarr(self.path, mode="w", encoding=enc,
                                                                consolidated=False)
        self._created = True

    def write(self, i: int, ds) -> None:
        import xarray as xr

        if not self._created:
            self._create(ds)
        start = int(ds["member"].values[0])
        region = slice(start, start + ds.sizes["member"])
        part = ds.drop_vars([k for k, v in ds.variables.items() if "member" not in v.dims])
        part.to_zarr(self.path, region={"member": region}, consolidated=False)
        xr.Dataset({"chunk_done": (("chunk",), np.array([True]))}).to_zarr(
            self.path, region={"chunk": slice(i, i + 1)}, consolidated=False)

    def result(self):
        import xarray as xr

        return _clean(xr.open_zarr(self.path, consolidated=False).load())


class NetCDFStore:
    """One NetCDF file per finished chunk beside the target, joined at the end (module docstring)."""

    def __init__(self, path: Path, fingerprint: str, layout: tuple) -> None:
        self.path, self.fp = path, fingerprint
        self.n_chunks = layout[0]
        self.parts = path.with_name(path.name + ".parts")
        if path.exists():
            import xarray as xr

            try:
                with xr.open_dataset(path) as ds:
                    fp = ds.attrs.get("fingerprint")
            except (OSError, ValueError) as exc:
                raise InputError(f"ensemble: {path} exists but is not a readable NetCDF file: {exc}") from exc
            if fp != fingerprint:
                raise _mismatch(path)
        if self.parts.exists():
            mark = self.parts / "fingerprint"
            if not mark.exists() or mark.read_text(encoding="utf-8").strip() != fingerprint:
                raise _mismatch(self.parts)

    def _chunk_file(self, i: int) -> Path:
        return self.parts / f"chunk_{i:06d}.nc"

    def done(self) -> set:
        if not self.parts.exists():
            return set()
        return {int(f.stem.split("_")[1]) for f in self.parts.glob("chunk_*.nc")}

    def complete(self) -> bool:
        return self.path.exists()

    def write(self, i: int, ds) -> None:
        if not self.parts.exists():
            self.parts.mkdir(parents=True)
            (self.parts / "fingerprint").write_text(self.fp + "\n", encoding="utf-8")
        _atomic_netcdf(ds, self._chunk_file(i))
        if len(self.done()) == self.n_chunks:
            self._join()

    def _join(self) -> None:
        import xarray as xr

        parts = []
        for i in range(self.n_chunks):
            with xr.open_dataset(self._chunk_file(i)) as part:
                parts.append(part.load())
        ds = xr.concat(parts, dim="member", data_vars="all", coords="different", compat="equals", join="exact",
                       combine_attrs="override")
        _atomic_netcdf(ds, self.path)
        shutil.rmtree(self.parts)

    def result(self):
        import xarray as xr

        if not self.path.exists() and len(self.done()) == self.n_chunks:  # joining was interrupted
            self._join()

        with xr.open_dataset(self.path) as ds:
            return ds.load()
