"""Where the example scripts save their figures: $JETGEO_FIGURES if set, else nowhere (shown only)."""

from __future__ import annotations

import os
from pathlib import Path


def save(fig, name: str) -> None:
    out = os.environ.get("JETGEO_FIGURES")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        fig.savefig(Path(out) / f"{name}.png", dpi=80)
