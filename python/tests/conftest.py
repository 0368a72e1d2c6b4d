"""Shared fixtures of the Python tests: the repository's seeds, whether
bubblewrap can sandbox code steps here, the ``sandmle`` binary (for the
tests that compare the package with the command line) and a small folder of
generated environments."""

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SEEDS = REPO / "examples" / "seeds"
WINE = SEEDS / "wine"

#: The seeds the generation tests use (one classification, one regression).
GEN_SEEDS = ["oj", "wine"]


def bwrap_works() -> bool:
    """Whether bubblewrap runs here; fails when it must and cannot."""
    try:
        ok = (
            subprocess.run(
                ["bwrap", "--unshare-all", "--ro-bind", "/", "/", "--", "/bin/true"],
                capture_output=True,
                timeout=30,
            ).returncode
            == 0
        )
    except (OSError, subprocess.TimeoutExpired):
        ok = False
    if not ok and os.environ.get("SANDMLE_REQUIRE_BWRAP"):
        pytest.fail("bubblewrap is required but cannot run here")
    return ok


@pytest.fixture(scope="session")
def unsandboxed() -> bool:
    """True where code steps must run without bubblewrap (only this suite's
    own programs run)."""
    return not bwrap_works()


@pytest.fixture(scope="session")
def sandmle_bin() -> Path:
    """``$SANDMLE_BIN``, else ``$CARGO_TARGET_DIR`` (or ``target/``)
    ``release`` or ``debug``."""
    if os.environ.get("SANDMLE_BIN"):
        return Path(os.environ["SANDMLE_BIN"]).resolve()
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    for profile in ("release", "debug"):
        candidate = target / profile / "sandmle"
        if candidate.exists():
            return candidate
    pytest.fail("no sandmle binary: build it (cargo build --bin sandmle) or set SANDMLE_BIN")


def run_cli(sandmle_bin: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """``sandmle --json ARGS`` from the repository root."""
    proc = subprocess.run([str(sandmle_bin), "--json", *args], capture_output=True, text=True, cwd=REPO, timeout=600)
    if check and proc.returncode != 0:
        pytest.fail(f"sandmle {' '.join(args)} exited {proc.returncode}: {proc.stderr}")
    return proc


@pytest.fixture(scope="session")
def generated(tmp_path_factory) -> Path:
    """Two candidates of each of ``GEN_SEEDS``, made by ``sandmle.generate``."""
    import sandmle

    out = tmp_path_factory.mktemp("generated")
    report = sandmle.generate(str(out), per_seed=2, seed=0, seeds_dir=str(SEEDS), seed_envs=GEN_SEEDS)
    assert report["yield"]["total"]["kept"] >= 2, report
    return out


def env_paths(out: Path) -> list:
    """The kept environments of a generated folder, in index order."""
    lines = (out / "index.jsonl").read_text().splitlines()
    return [out / json.loads(l)["path"] for l in lines if l.strip()]


def tree(root: Path) -> dict:
    """Every file under ``root`` by relative path, with its bytes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


TIMING_STEP_KEYS = ("wall_ms",)


def without_timing(row: dict) -> dict:
    """A trajectory row without its wall times (the only fields a
    deterministic policy does not fix)."""
    row = json.loads(json.dumps(row))
    row.pop("timing", None)
    for step in row.get("steps", []):
        for key in TIMING_STEP_KEYS:
            step.pop(key, None)
    return row
