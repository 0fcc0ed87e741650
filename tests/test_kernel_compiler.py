"""The fast kernel's quicker numba pipeline (``engine/kernel_compiler.py``) changes how long a
compile takes, never what it compiles: the bit-set liveness equals numba's on real IR, and a
function compiled with the pipeline computes what numba's default pipeline compiles it to."""

import copy
import types
from pathlib import Path

import numba
import numpy as np
import pytest
from numba.core import analysis, codegen, inline_closurecall, ir_utils
from numba.core.compiler import run_frontend
from numba.core.postproc import VariableLifetime

from iosim.engine import (
    fast_device_steps,
    fast_hdd_steps,
    fast_host_steps,
    fast_path_steps,
    fast_raid_steps,
    fast_ssd_steps,
)
from iosim.engine import kernel_compiler as kc


def _py(fn):
    return getattr(fn, "py_func", fn)


@pytest.mark.parametrize("fn", [
    fast_path_steps.path_step, fast_raid_steps.raid_step, fast_raid_steps._controller_step,
    fast_raid_steps._fault_step, fast_ssd_steps._serve_step, fast_ssd_steps._die_step,
    fast_hdd_steps._serve_step, fast_hdd_steps._actuator_step, fast_host_steps.host_step,
    fast_device_steps.device_step,
], ids=lambda f: f"{f.__module__.rsplit('.', 1)[-1]}.{f.__name__}")
def test_bit_liveness_equals_numbas(fn):
    """Same live variables at every block's entry as numba's set version, on the IR of the
    engine's largest step functions (loops, early returns, many blocks)."""
    func_ir = run_frontend(_py(fn))
    vlt = VariableLifetime(func_ir.blocks)
    args = (vlt.cfg, func_ir.blocks, vlt.usedefs.usemap, vlt.usedefs.defmap)
    want = analysis.compute_live_map(*args)
    got = kc.live_map_bits(*args)
    assert list(got) == list(want)
    assert got == want
    assert sum(len(v) for v in want.values()) > 100  # a real workout, not empty maps


def test_bit_liveness_on_a_loop_with_a_late_definition():
    """A name defined late in a loop body and used at its top is live around the back edge."""
    def f(n):
        t = 0
        x = 0
        for i in range(n):
            if i > 2:
                t += x
            x = i * 2
        return t

    func_ir = run_frontend(f)
    vlt = VariableLifetime(func_ir.blocks)
    args = (vlt.cfg, func_ir.blocks, vlt.usedefs.usemap, vlt.usedefs.defmap)
    got = kc.live_map_bits(*args)
    assert got == analysis.compute_live_map(*args)
    assert any("x" in live for live in got.values())


@numba.njit(inline="always")
def _twice(a, i):
    s = 0.0
    for j in range(i):
        s += a[j % a.size] * 2.0
    return s


def _caller(a, n):
    total = 0.0
    for i in range(n):
        if i % 3 == 0:
            total += _twice(a, i)
        elif i % 3 == 1:
            total -= _twice(a, i + 1)
        else:
            total += _twice(a, 2)
    return total


def test_kernel_compiler_compiles_what_numba_compiles(monkeypatch):
    """An inlined helper called at three sites: same result as numba's default pipeline; the
    copy-free inliner did the inlining; numba's own functions are back in place after."""
    calls = []
    inline = kc._FreshIRInliner.inline_function
    optimize_functions = codegen.CPUCodeLibrary._optimize_functions

    def counted(self, *a, **kw):
        calls.append(a[3].__name__)
        return inline(self, *a, **kw)

    monkeypatch.setattr(kc._FreshIRInliner, "inline_function", counted)
    a = np.arange(7.0)
    ours = numba.njit(pipeline_class=kc.KernelCompiler)(_caller)
    theirs = numba.njit(_caller)
    assert ours(a, 50) == theirs(a, 50) == _caller(a, 50)
    assert calls.count("_twice") == (3 if kc.SUPPORTED["inliner"] else 0)
    assert analysis.compute_live_map is not kc.live_map_bits
    assert ir_utils.compute_live_map is not kc.live_map_bits
    assert inline_closurecall.copy is copy
    assert inline_closurecall.InlineWorker is not kc._FreshIRInliner
    assert codegen.CPUCodeLibrary._optimize_functions is optimize_functions


def test_without_the_internals_it_expects_it_compiles_numbas_way(monkeypatch):
    """With another numba, a speed-up whose internals are missing is left out (numba's own
    way for that part), and the kernel still compiles to the same results."""
    for name in kc.SUPPORTED:
        monkeypatch.setitem(kc.SUPPORTED, name, False)
    calls = []
    numbas = analysis.compute_live_map

    def spy(*args):
        calls.append(1)
        return numbas(*args)

    monkeypatch.setattr(analysis, "compute_live_map", spy)
    a = np.arange(5.0)
    assert numba.njit(pipeline_class=kc.KernelCompiler)(_caller)(a, 40) == _caller(a, 40)
    assert calls  # numba's liveness (spied here) ran, not the bit-set one


@numba.njit
def _scaled(a, k):  # not inlined: a compiled helper of its own
    return a[0] * (k + 1)


def _calls_with_a_constant_and_a_variable(a, n):
    return _scaled(a, 0) + _scaled(a, n)


def test_a_helper_called_with_a_constant_and_a_variable_compiles_once(monkeypatch):
    """numba types the constant 0 as Literal[int](0): its own pipeline compiles the helper twice
    (once per call site's types). Ours types iosim's helpers' constants plainly: one compile,
    the same result; numba's dispatcher is back in place after."""
    from numba.core import dispatcher

    theirs = numba.njit(_calls_with_a_constant_and_a_variable)
    a = np.arange(1.0, 4.0)
    assert theirs(a, 2) == 4.0
    assert len(_scaled.signatures) == 2  # (Literal[int](0)) and (int64)
    monkeypatch.setattr(kc, "_IOSIM", str(Path(__file__).resolve().parent))  # "ours" here
    helper = numba.njit(_scaled.py_func)
    caller = types.FunctionType(_calls_with_a_constant_and_a_variable.__code__,
                                {**globals(), "_scaled": helper})
    get_call_template = dispatcher.Dispatcher.get_call_template
    assert numba.njit(pipeline_class=kc.KernelCompiler)(caller)(a, 2) == 4.0
    assert len(helper.signatures) == (1 if kc.SUPPORTED["plain_calls"] else 2)
    assert dispatcher.Dispatcher.get_call_template is get_call_template


_Rec = __import__("collections").namedtuple("_Rec", ("a", "b"))


@numba.njit(inline="always")
def _step(r, i):
    r.a[i] += r.b[i]
    return r.a[i]


def _records_in_and_out_of_the_loop(a, b, n):
    outer = _Rec(a, b)  # assigned once, before the loop: its copies can be read as it
    total = 0.0
    for i in range(n):
        total += _step(outer, i % a.size)
        inner = _Rec(b, a) if i % 2 else _Rec(a, a)  # assigned in the loop: copies stay
        total += _step(inner, 0)
    return total


def test_copies_of_a_record_read_as_their_source(monkeypatch):
    """An inlined step's record parameter is read as the record when the record is assigned
    once outside every loop; a record assigned in the loop keeps its copy. Same results."""
    found = []
    forwarded = kc.forwarded_copies

    def spy(func_ir, typemap):
        got = forwarded(func_ir, typemap)
        found.append(got)
        return got

    monkeypatch.setattr(kc, "forwarded_copies", spy)

    def fresh():  # the step adds into its record's arrays: each run gets its own
        return np.arange(4.0), np.arange(4.0) + 0.5, 9

    want = _records_in_and_out_of_the_loop(*fresh())
    ours = numba.njit(pipeline_class=kc.KernelCompiler)(_records_in_and_out_of_the_loop)
    assert ours(*fresh()) == want == numba.njit(_records_in_and_out_of_the_loop)(*fresh())
    if not kc.SUPPORTED["forward"]:
        return
    (names,) = found
    assert set(names.values()) == {"outer"}  # the outer record's copies, and only those
    assert any(t.endswith("_r") for t in names)  # the step's parameter among them
