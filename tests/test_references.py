"""Every citation key used in the project resolves to an entry of ``theory/references.md``.

The code, docstrings, tests, theory pages, examples, benchmarks and the README cite sources as
``[Author YEAR]`` or ``[Author YEAR, eq. (12)]`` (``[Stolařová 2009, eq. (12)]``,
``[Ibort et al. 1996, §6.1]``, ``[Neimark–Fufaev 1972]``); the bibliography defines each key once
as ``**[Key]**``.  The repository stands alone: it cites no design notes kept elsewhere and no
file numbers of the papers.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFERENCES = ROOT / "theory" / "references.md"
SCANNED = ["jetgeo", "tests", "theory", "examples", "benchmarks", "README.md"]
SUFFIXES = {".py", ".md", ".toml", ".txt", ".rst", ".cfg"}

#: an author list: capitalised words, initials, "et al.", joined by spaces, en dashes, hyphens or "&"
_AUTHORS = r"[A-Z][\w'’.\-]*(?:(?:\s+|–|-|\s*&\s*)(?:[A-Z][\w'’.\-]*|et al\.|de|van|von|der|da))*"
#: "[Authors YEAR" followed by "]" or by ", locator]"; the locator may run onto the next line
CITATION = re.compile(rf"\[({_AUTHORS})\s+(1[5-9]\d\d|20\d\d)(?=\]|,)")
DEFINITION = re.compile(r"\*\*\[([^\]]+)\]\*\*")

# assembled so that this file does not match itself
_FORBIDDEN = re.compile("DES" + "IGN|[Ss]eed 0" + "0[0-9]|[Ss]eed0" + "0[0-9]")
_FORBIDDEN_IN = ["jetgeo", "tests", "theory", "examples", "benchmarks", "README.md"]


def _files(roots):
    for name in roots:
        path = ROOT / name
        if path.is_file():
            yield path
        else:
            yield from (p for p in sorted(path.rglob("*")) if p.is_file() and p.suffix in SUFFIXES
                        and "__pycache__" not in p.parts)


def _defined_keys() -> set[str]:
    return set(DEFINITION.findall(REFERENCES.read_text(encoding="utf-8")))


def _citations() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in _files(SCANNED):
        text = path.read_text(encoding="utf-8", errors="replace")
        for m in CITATION.finditer(text):
            key = f"{m.group(1)} {m.group(2)}"
            line = text.count("\n", 0, m.start()) + 1
            found.setdefault(key, []).append(f"{path.relative_to(ROOT)}:{line}")
    return found


def test_the_citation_pattern_reads_the_forms_in_use():
    text = ("[Stolařová 2009, eq. (12)] [Ibort et al. 1996, §6.1] [Benenti 2007] [Neimark–Fufaev 1972]"
            " [Meijaard et al. 2007,\n Table 2] x[i 2000] [0, 2009] [Ghori 1960; not a key")
    keys = [f"{a} {y}" for a, y in CITATION.findall(text)]
    assert keys == ["Stolařová 2009", "Ibort et al. 1996", "Benenti 2007", "Neimark–Fufaev 1972",
                    "Meijaard et al. 2007"]


def test_the_four_papers_are_defined():
    keys = _defined_keys()
    assert {"Benenti 2007", "Ibort et al. 1996", "Ghori 1960", "Stolařová 2009"} <= keys


def test_every_cited_key_is_in_the_bibliography():
    keys = _defined_keys()
    cited = _citations()
    # the project cites its papers, so an empty scan means the pattern or the paths broke
    assert len(cited) >= 4 and sum(len(v) for v in cited.values()) > 300
    missing = {k: v[:3] for k, v in cited.items() if k not in keys}
    assert not missing, f"citation keys not defined in theory/references.md: {missing}"


def test_no_citation_of_design_notes_or_paper_file_numbers():
    hits = []
    for path in _files(_FORBIDDEN_IN):
        if path == Path(__file__).resolve():
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if _FORBIDDEN.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:100]}")
    assert not hits, "cite by the keys of theory/references.md instead:\n" + "\n".join(hits)


def test_the_readme_links_the_design_and_the_bibliography():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "theory/architecture.md" in readme and "theory/references.md" in readme
    assert (ROOT / "theory" / "architecture.md").is_file()
