"""Every shell command of the README's "The command line" and "Compare your own fio results"
sections runs verbatim, in order, in one temporary directory, and exits 0: a newcomer can
copy them one after the other from the clone's root, where `data/` is (the Set-up block with
`make` is not run here).

Without fio on the machine, the fio loop is replaced by copies of the sweep measured on the
build machine (data/measured_kvm_virtio, fio's own JSON output) under the names the loop
writes; every other command is run exactly as printed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
SECTIONS = ("The command line", "Compare your own fio results", "Replay a production trace")
# blktrace needs root and a real disk: without it, a real blkparse capture stands in
BLKPARSE = (
    ROOT.parent / "shared" / "blocktraces" / "blkparse" / "nvme0n1-dmcrypt-ext4-blktrace_merge.txt"
)
MEASURED = ROOT / "data" / "measured_kvm_virtio"

pytestmark = pytest.mark.slow


def _section(text: str, title: str) -> str:
    m = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert m, f"README has no section {title!r}"
    return m.group(1)


def _commands(block: str) -> list[str]:
    """Logical commands of a shell block: continuation lines joined, a for loop kept whole."""
    out: list[str] = []
    buf: list[str] = []
    depth = 0
    for line in block.splitlines():
        if not line.strip() and not buf:
            continue
        buf.append(line)
        word = line.strip().split(" ", 1)[0]
        depth += (word in ("for", "while")) - (word in ("done", "done;"))
        if line.rstrip().endswith("\\") or depth > 0:
            continue
        out.append("\n".join(buf))
        buf = []
    assert not buf, f"unterminated command in README: {buf}"
    return out


def readme_commands() -> list[str]:
    text = README.read_text(encoding="utf-8")
    cmds = []
    for title in SECTIONS:
        for block in re.findall(r"```sh\n(.*?)```", _section(text, title), re.S):
            cmds += _commands(block)
    return cmds


def test_the_readme_has_the_commands_it_should():
    cmds = readme_commands()
    assert any(c.startswith("iosim sweep") and "-o sweep.csv" in c for c in cmds)
    assert any(c.startswith("iosim report sweep.csv") for c in cmds)
    assert any(c.startswith("for qd in") and "fio " in c for c in cmds)
    assert not any(c.lstrip().startswith("make") for c in cmds)  # Set-up is not run here
    assert any(c.startswith("iosim replay trace.txt") for c in cmds)


def _stand_in_for_fio(loop: str, cwd: Path) -> None:
    depths = re.match(r"for qd in ([\d ]+);", loop.strip()).group(1).split()
    names = re.search(r"--output=(\S+)", loop).group(1)
    for qd in depths:
        shutil.copy(MEASURED / f"randread-4k-qd{qd}.json", cwd / names.replace("$qd", qd))


def test_readme_commands_run_verbatim_in_order(tmp_path):
    iosim = Path(sys.executable).parent / "iosim"
    if not iosim.exists():
        pytest.skip("the iosim entry point is not installed next to this Python")
    env = dict(os.environ)
    env["PATH"] = f"{iosim.parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = f"{ROOT}{os.pathsep}{env.get('PYTHONPATH', '')}".rstrip(os.pathsep)
    env.pop("IOSIM_FAST", None)  # the README does not set it: run what a reader runs
    (tmp_path / "data").symlink_to(ROOT / "data")  # (a reader runs them from the clone's root)
    for cmd in readme_commands():
        if cmd.startswith("for qd in") and "fio " in cmd and shutil.which("fio") is None:
            _stand_in_for_fio(cmd, tmp_path)
            continue
        if cmd.startswith("blktrace "):  # never trace this machine's disk from a test
            if not BLKPARSE.exists():
                pytest.skip("no blkparse capture to stand in for blktrace (../shared absent)")
            shutil.copy(BLKPARSE, tmp_path / re.search(r"-o (\S+)\s*(#|$)", cmd).group(1))
            continue
        proc = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", cmd],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert proc.returncode == 0, f"{cmd}\n-> exit {proc.returncode}\n{proc.stderr[-2000:]}"
        assert "Traceback" not in proc.stderr, f"{cmd}\n{proc.stderr[-2000:]}"
    assert (tmp_path / "sweep.html").stat().st_size > 0
    assert (tmp_path / "fit.html").stat().st_size > 0
