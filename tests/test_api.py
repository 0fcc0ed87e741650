"""The public API is pinned, and imports point one way (low layers never import high ones)."""

import ast
from pathlib import Path

import iosim

PKG = Path(iosim.__file__).parent


def test_public_api_is_pinned():
    expected = {
        "Curve", "Results", "SpecError", "Stack", "UnitError", "UnstableError", "Workload",
        "apply_overrides", "dump_toml", "load_toml", "open_loop_capacity_iops", "parse_dist",
        "presets", "simulate", "sweep", "theory", "traces", "fit", "FitResult", "check_claim",
        "to_fio_json", "write_fio_json",
    }
    assert expected <= set(iosim.__all__)
    for name in iosim.__all__:
        assert hasattr(iosim, name), name


# module (or package) -> iosim modules it must never import, directly
FORBIDDEN = {
    "units": {"*"},
    "rng": {"*"},
    "limits": {"*"},
    "theory": {"*"},
    "claims": {"*"},  # except the data it checks against (ALLOWED below)
    "catalogue": {"*"},
    "dists": {"engine", "simulate", "stack", "workload", "traces", "plots", "widgets", "cli"},
    "spec": {"engine", "simulate", "stack", "workload", "traces", "plots", "widgets", "cli"},
    "workload": {"engine", "simulate", "stack", "traces", "plots", "widgets", "cli"},
    "devices": {"engine", "simulate", "stack", "traces", "plots", "widgets", "cli"},
    "stack": {"engine", "simulate", "traces", "plots", "widgets", "cli"},
    "results": {"engine", "simulate", "stack", "traces", "plots", "widgets", "cli"},
    "engine": {"simulate", "traces", "fit", "plots", "widgets", "cli", "plan", "report"},
    "traces": {"engine", "simulate", "fit", "plots", "widgets", "cli", "plan", "report"},
    "simulate": {"plots", "widgets", "cli", "fit", "plan", "report"},
    "plots": {"widgets", "cli"},
}


# exceptions to a "*" rule: claims reads the sourced figures of catalogue (data only, which
# itself imports nothing from iosim), so claims stays free of every simulation module.
ALLOWED = {"claims": {"catalogue"}}


def _iosim_imports(path: Path) -> set[str]:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = parts[: len(parts) - node.level + (1 if path.name == "__init__.py" else 0)]
                target = base + (node.module.split(".") if node.module else [])
                if node.module is None:
                    for alias in node.names:
                        out.add(".".join([*target, alias.name]))
                else:
                    out.add(".".join(target))
            elif node.module and node.module.startswith("iosim"):
                out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("iosim"))
    # top-level component: iosim.X.Y -> X
    return {m.split(".")[1] for m in out if m.startswith("iosim.") and m.count(".") >= 1}


def test_imports_point_one_way():
    problems = []
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG)
        top = rel.parts[0].removesuffix(".py")
        rules = FORBIDDEN.get(top)
        if not rules:
            continue
        imported = _iosim_imports(path) - {top} - ALLOWED.get(top, set())
        bad = imported if "*" in rules else imported & rules
        if bad:
            problems.append(f"{rel} imports {sorted(bad)}")
    assert not problems, problems
