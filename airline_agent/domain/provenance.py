"""How a database was built, as the database itself records it.

A build writes its provenance into `meta` (key `provenance`, JSON) in its final
transaction, beside the `source` fact that marks it complete (loading.py): the sample
generator's seed and scale, or the τ² file it imported (absolute path and sha256). With
that, a database can be rebuilt exactly as it was built (provisioning.rebuild_as_built)
instead of as the default sample. Databases built before provenance was recorded have
only `source`: a sample's seed and scale are read from it; a τ² import's file is unknown.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

PROVENANCE_FACT = "provenance"

Kind = Literal["sample", "tau2", "unknown"]
_SAMPLE_SOURCE = re.compile(r"sample seed=(-?\d+) scale=(\d+)")


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class Provenance:
    """What a database was built from: the sample (seed, scale), a τ² file (path and
    sha256; None when the data came from memory, not a file), or unknown."""

    kind: Kind
    seed: int | None = None
    scale: int | None = None
    tau2_file: str | None = None
    tau2_sha256: str | None = None

    @classmethod
    def sample(cls, seed: int, scale: int) -> Provenance:
        return cls("sample", seed=seed, scale=scale)

    @classmethod
    def tau2(cls, file: Path | None) -> Provenance:
        """A τ² import; of `file` (its hash taken now), or of data held in memory."""
        if file is None:
            return cls("tau2")
        return cls("tau2", tau2_file=str(file.resolve()), tau2_sha256=file_sha256(file))

    @classmethod
    def from_meta(cls, facts: dict[str, str]) -> Provenance:
        """Read from a database's `meta` facts (tolerating older or damaged records)."""
        recorded = facts.get(PROVENANCE_FACT)
        if recorded is not None:
            try:
                fields = json.loads(recorded)
                if fields.get("kind") in ("sample", "tau2"):
                    return cls(**fields)
            except (ValueError, TypeError, AttributeError):
                pass
        matched = _SAMPLE_SOURCE.fullmatch(facts.get("source", ""))
        if matched:
            return cls.sample(int(matched[1]), int(matched[2]))
        if facts.get("source") == "tau2":
            return cls("tau2")
        return cls("unknown")

    def fact(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    def source(self) -> str:
        """The short `source` fact (shown by `seed`): `sample seed=N scale=K` or `tau2`."""
        if self.kind == "sample":
            return f"sample seed={self.seed} scale={self.scale}"
        return self.kind

    def describe(self) -> str:
        """In words, for a user: what a rebuild would give back."""
        if self.kind == "sample":
            scale = "" if self.scale == 1 else f", scale {self.scale}"
            return f"the sample (seed {self.seed}{scale})"
        if self.kind == "tau2":
            return f"the τ² import of {self.tau2_file}" if self.tau2_file else "a τ² import"
        return "an unknown build"

    def short(self) -> str:
        """In a few words, for a status line: 'sample seed 7', 'τ² import'."""
        if self.kind == "sample":
            return f"sample seed {self.seed}" + ("" if self.scale == 1 else f" scale {self.scale}")
        return "τ² import" if self.kind == "tau2" else "unknown build"

    def why_not_rebuildable(self) -> str | None:
        """None when the build can be repeated exactly; else why not, in words."""
        if self.kind == "sample":
            return None
        if self.kind == "tau2":
            if self.tau2_file is None:
                return "it was imported from τ² data whose file was not recorded"
            file = Path(self.tau2_file)
            if not file.is_file():
                return f"the τ² file it was imported from is gone ({file})"
            if file_sha256(file) != self.tau2_sha256:
                return f"the τ² file it was imported from has changed since ({file})"
            return None
        return "the database does not record how it was built"
