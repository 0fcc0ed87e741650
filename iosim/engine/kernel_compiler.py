"""numba's nopython pipeline, made quicker for the fast kernel: one function of several
thousand IR statements into which some fifty step functions are inlined.

Six costs grow with the size of such a function; cutting them changes nothing the compiled
code computes (the engines' equality tests compare every field with SimPy's):

- **SSA reconstruction** is left out: the kernel gives each name one type (``fast._LOCALS``),
  so it needs no renaming; LLVM builds its own SSA form.
- **The inliner's two deep copies of every callee's IR** (numba issue 8989, and numba-cuda pull
  request 689 for the same code) are skipped: ``InlineWorker.inline_function`` builds the
  callee's IR afresh for each call site, so nothing else holds it. Each deep copy copied the
  callee's whole variable scope once per block: the disk variant spent 18 s of its compile there.
- **Liveness** (``numba.core.analysis.compute_live_map``, run by every IR post-processing pass)
  is computed on bit sets (Python integers, one bit a variable) instead of Python sets: the
  same least fixed point, exactly, in a fraction of the time (``live_map_bits``; the disk variant
  spent ~25 s in the set version's reaching-definitions loop). It is installed only while a
  kernel compiles.
- **One compile per helper, not one per constant**: numba types a constant argument as a
  literal (``Literal[int](0)``), and a helper called with ``0`` here and a variable there is
  typed, compiled and optimised once for each (the RAID planners four times each). While a
  kernel compiles, calls to iosim's own compiled helpers are typed with the constants' plain
  types (``_plain_helper_calls``): one signature per helper and argument kinds (the disk
  variant: 82 signatures -> 68); numba's own functions, and the HDD pool's links on the
  disk's hottest path, keep their literal typing.
- **LLVM's scalar replacement (SROA) of the kernel's records**: numba reads a field of a
  named tuple (``hs.hd_i``) by loading the whole tuple from its stack slot and extracting the
  field; the kernel does that some thousand times on records of up to a few hundred numbers,
  and SROA, the first of numba's function passes, split every such load into one per number
  before promoting them (24 of the disk variant's 32 s of function passes). A CFG
  simplification and an instruction-combining pass run first (``_simplified_first``) turn each
  load-then-extract into a load of the one field: the function passes then take ~15 s.
- **A record copied into each inlined step's parameter**: inlining binds a parameter by a copy
  (``ops = ev_ops``), and numba gives every such variable a stack slot of the whole record.
  The disk variant had some 160 of them, records of up to 233 numbers, and SROA split each
  one field by field again (24 of its 62 s of function passes, after the simplification
  above). A copy of a record or an array whose source is assigned once, outside every loop,
  is read as its source instead (``forwarded_copies``, run after typing): the disk variant's
  LLVM time 57 -> 31 s.

Measured on the disk variant, cold cache, this 2-core machine: see ``docs/architecture.md``.

The last five reach into numba's internals (numba 0.68). Each is used only when
:data:`SUPPORTED` finds the internals it needs as it expects them; with another numba a
missing one means numba's own (slower) way for that part, never a failed compile.
"""

from __future__ import annotations

import contextlib
import copy as _copy
import inspect

import llvmlite.binding as llvm
from numba.core import analysis, codegen, inline_closurecall, ir, ir_utils, types
from numba.core import dispatcher as _dispatcher
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_machinery import FunctionPass, register_pass
from numba.core.inline_closurecall import InlineWorker
from numba.core.typed_passes import IRLegalization
from numba.core.untyped_passes import InlineInlinables

__all__ = ["KernelCompiler", "SUPPORTED", "ForwardCopies", "forwarded_copies", "live_map_bits"]


def _params(fn) -> list[str]:
    try:
        return list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return []


def _supported() -> dict[str, bool]:
    """Which speed-ups this numba's internals allow (see the module's docstring)."""
    run_pass = getattr(InlineInlinables, "run_pass", None)
    return {
        "inliner": (getattr(inline_closurecall, "copy", None) is _copy
                    and "InlineWorker" in getattr(getattr(run_pass, "__code__", None),
                                                  "co_names", ())
                    and _params(InlineWorker.inline_ir)[:6]
                    == ["self", "caller_ir", "block", "i", "callee_ir", "callee_freevars"]
                    and hasattr(InlineWorker, "run_untyped_passes")),
        "liveness": all(_params(f) == ["cfg", "blocks", "var_use_map", "var_def_map"]
                        for f in (getattr(analysis, "compute_live_map", None),
                                  getattr(ir_utils, "compute_live_map", None))),
        "simplify": (_params(getattr(codegen.CPUCodeLibrary, "_optimize_functions", None))
                     == ["self", "ll_module"]
                     and hasattr(llvm, "create_new_function_pass_manager")),
        "plain_calls": (_params(getattr(_dispatcher.Dispatcher, "get_call_template", None))
                        == ["self", "args", "kws"] and hasattr(types, "unliteral")),
        "forward": (_params(getattr(ir_utils, "replace_var_names", None))[:2]
                    == ["blocks", "namedict"]
                    and all(hasattr(ir_utils, f) for f in ("compute_cfg_from_blocks",
                                                           "build_definitions"))),
    }


#: the speed-ups this numba allows: ``inliner`` (no deep copies), ``liveness`` (bit sets),
#: ``simplify`` (LLVM simplification first), ``plain_calls`` (one signature per helper),
#: ``forward`` (record and array copies read as their source)
SUPPORTED = _supported()


def live_map_bits(cfg, blocks, var_use_map, var_def_map) -> dict:
    """The variables live at the entry of each block: numba's ``compute_live_map`` (same
    arguments, same result) with each block's set of names held as an integer's bits.

    Both are least fixed points of the same monotone equations, so iteration order and
    representation cannot change the answer: ``reach[b]`` holds every name used or defined in
    a block from which ``b`` can be reached (``b`` included); ``live[b]`` holds the names ``b``
    uses, and the names live in a successor that reach ``b`` and are not defined in ``b``."""
    bit: dict[str, int] = {}

    def bits(names) -> int:
        v = 0
        for name in names:
            b = bit.get(name)
            if b is None:
                b = bit[name] = len(bit)
            v |= 1 << b
        return v

    use = {k: bits(v) for k, v in var_use_map.items()}
    defs = {k: bits(v) for k, v in var_def_map.items()}
    topo = cfg.topo_order()
    succ = {b: [s for s, _ in cfg.successors(b)] for b in topo}

    reach: dict = {}
    changed = True
    while changed:
        changed = False
        for b in topo:
            here = reach.get(b, 0) | defs.get(b, 0) | use.get(b, 0)
            if here != reach.get(b, 0):
                reach[b] = here
                changed = True
            for s in succ[b]:
                was = reach.get(s, 0)
                if was | here != was:
                    reach[s] = was | here
                    changed = True

    live = {k: use.get(k, 0) for k in blocks.keys()}
    changed = True
    while changed:
        changed = False
        for b in reversed(topo):
            here = live[b]
            for p, _ in cfg.predecessors(b):
                was = live[p]
                now = was | ((here & reach.get(p, 0)) & ~defs.get(p, 0))
                if now != was:
                    live[p] = now
                    changed = True

    names = list(bit)
    out = {}
    for k, v in live.items():
        got = set()
        while v:
            low = v & -v
            got.add(names[low.bit_length() - 1])
            v ^= low
        out[k] = got
    return out


@contextlib.contextmanager
def _bit_liveness():
    """numba's liveness computed by :func:`live_map_bits` for the duration (both modules that
    call it by name); restored after, even on error."""
    if not SUPPORTED["liveness"]:
        yield
        return
    saved = analysis.compute_live_map, ir_utils.compute_live_map
    analysis.compute_live_map = ir_utils.compute_live_map = live_map_bits
    try:
        yield
    finally:
        analysis.compute_live_map, ir_utils.compute_live_map = saved


def _simplify_first(module, data_layout, tm) -> None:
    """A CFG simplification and an instruction combining over each function of ``module``
    (both standard, semantics-preserving LLVM passes), before numba's function passes."""
    module.data_layout = data_layout
    for func in module.functions:
        if func.is_declaration:
            continue
        fpm = llvm.create_new_function_pass_manager()
        fpm.add_simplify_cfg_pass()
        fpm.add_instruction_combine_pass()
        fpm.run(func, tm)


@contextlib.contextmanager
def _simplified_first():
    """numba's function passes preceded by :func:`_simplify_first` for the duration."""
    if not SUPPORTED["simplify"]:
        yield
        return
    saved = codegen.CPUCodeLibrary._optimize_functions

    def optimize_functions(self, ll_module):
        _simplify_first(ll_module, self._codegen._data_layout, self._codegen._pass_builder())
        return saved(self, ll_module)

    codegen.CPUCodeLibrary._optimize_functions = optimize_functions
    try:
        yield
    finally:
        codegen.CPUCodeLibrary._optimize_functions = saved


_IOSIM = str(__import__("pathlib").Path(__file__).resolve().parents[1])
#: helpers that keep their constants' literal types: the HDD's SPTF pool, whose links take
#: their columns as constants on the disk's hottest path (a few small compiles more)
_LITERAL_KEPT = str(__import__("pathlib").Path(__file__).resolve().parent / "fast_hdd.py")


def _ours(dispatcher) -> bool:
    code = getattr(getattr(dispatcher, "py_func", None), "__code__", None)
    return (code is not None and code.co_filename.startswith(_IOSIM)
            and code.co_filename != _LITERAL_KEPT)


@contextlib.contextmanager
def _plain_helper_calls():
    """Calls to iosim's compiled helpers typed with plain argument types for the duration
    (``Literal[int](0)`` -> ``int64``): one compile of a helper serves every call site."""
    if not SUPPORTED["plain_calls"]:
        yield
        return
    saved = _dispatcher.Dispatcher.get_call_template

    def get_call_template(self, args, kws):
        if _ours(self):
            args = tuple(types.unliteral(a) for a in args)
            kws = {k: types.unliteral(v) for k, v in kws.items()}
        return saved(self, args, kws)

    _dispatcher.Dispatcher.get_call_template = get_call_template
    try:
        yield
    finally:
        _dispatcher.Dispatcher.get_call_template = saved


class _NoDeepCopy:
    """Stands in for the ``copy`` module inside numba's ``inline_ir``: its "deep copies" of a
    callee's IR return the IR itself (see the module's docstring for why that is safe)."""

    def __getattr__(self, name):
        return getattr(_copy, name)

    @staticmethod
    def deepcopy(x, memo=None):
        return x


class _FreshIRInliner(InlineWorker):
    """numba's inliner, the callee's IR used as built for this call site, not deep-copied."""

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self._compiler_pipeline = _untyped_pipeline

    def inline_function(self, caller_ir, block, i, function, arg_typs=None):
        callee_ir = self.run_untyped_passes(function)
        freevars = function.__code__.co_freevars
        saved = inline_closurecall.copy
        inline_closurecall.copy = _NoDeepCopy()
        try:
            return self.inline_ir(caller_ir, block, i, callee_ir, freevars, arg_typs=arg_typs)
        finally:
            inline_closurecall.copy = saved


@register_pass(mutates_CFG=True, analysis_only=False)
class InlineInlinablesFreshIR(InlineInlinables):
    """numba's ``InlineInlinables`` pass with :class:`_FreshIRInliner` as its worker."""

    _name = "inline_inlinables_fresh_ir"

    def run_pass(self, state):
        saved = inline_closurecall.InlineWorker
        inline_closurecall.InlineWorker = _FreshIRInliner
        try:
            return super().run_pass(state)
        finally:
            inline_closurecall.InlineWorker = saved


def _swap_inliner(pm):
    if not SUPPORTED["inliner"]:
        return pm
    pm.passes = [(InlineInlinablesFreshIR, desc) if cls is InlineInlinables else (cls, desc)
                 for cls, desc in pm.passes]
    return pm


def _untyped_pipeline(state, name="untyped"):
    """numba's untyped pipeline (what the inliner runs on each callee) with our inliner."""
    return _swap_inliner(DefaultPassBuilder.define_untyped_pipeline(state, name))


def forwarded_copies(func_ir, typemap) -> dict[str, str]:
    """The copies ``t = v`` of records and arrays whose ``t`` can be read as ``v``: each name
    assigned once, ``v`` (after following copies to their source) outside every loop, so it
    holds one value from its assignment on and ``t`` always holds that value too. Returns
    ``{t: source}``. An inlined call binds each parameter this way: a step taking ``ev``
    copies the record into a variable of its own, which LLVM's SROA then splits field by field
    (a record of 161 numbers, copied at some 160 call sites in the disk variant)."""
    blocks = func_ir.blocks
    defs: dict[str, int] = {}
    def_block: dict[str, int] = {}
    copies: dict[str, str] = {}
    for label, block in blocks.items():
        for stmt in block.body:
            if isinstance(stmt, ir.Assign):
                t = stmt.target.name
                defs[t] = defs.get(t, 0) + 1
                def_block[t] = label
                v = stmt.value
                if (isinstance(v, ir.Var) and isinstance(typemap.get(t), (types.BaseTuple,
                                                                          types.Buffer))
                        and typemap.get(v.name) == typemap.get(t)):
                    copies[t] = v.name
    in_loop: set[int] = set()
    for loop in ir_utils.compute_cfg_from_blocks(blocks).loops().values():
        in_loop |= loop.body
    out: dict[str, str] = {}

    def source(name: str, seen: int = 0) -> str | None:
        if defs.get(name) != 1 or seen > len(copies):
            return None
        if name in copies:
            return source(copies[name], seen + 1)
        return None if def_block[name] in in_loop else name

    for t, v in copies.items():
        if defs[t] == 1:
            root = source(v)
            if root is not None:
                out[t] = root
    return out


@register_pass(mutates_CFG=False, analysis_only=False)
class ForwardCopies(FunctionPass):
    """Read each copy of :func:`forwarded_copies` as its source and drop the copy."""

    _name = "forward_record_copies"

    def __init__(self):  # (numba's pass base declares it abstract)
        FunctionPass.__init__(self)

    def run_pass(self, state):
        names = forwarded_copies(state.func_ir, state.typemap)
        if not names:
            return False
        blocks = state.func_ir.blocks
        ir_utils.replace_var_names(blocks, names)
        for block in blocks.values():
            block.body = [s for s in block.body if not (
                isinstance(s, ir.Assign) and isinstance(s.value, ir.Var)
                and s.value.name == s.target.name)]
        for t in names:
            state.typemap.pop(t, None)
        state.func_ir._definitions = ir_utils.build_definitions(blocks)
        return True


def _forward_copies(pm):
    """``pm`` with :class:`ForwardCopies` run just before numba legalises the IR for lowering
    (after typing, before ``ir.Del`` statements exist)."""
    if not SUPPORTED["forward"]:
        return pm
    pm.passes.insert(next(i for i, (cls, _) in enumerate(pm.passes) if cls is IRLegalization),
                     (ForwardCopies, "forward record and array copies"))
    pm.finalize()
    return pm


class KernelCompiler(CompilerBase):
    """numba's nopython pipeline without SSA reconstruction, with the copy-free inliner and,
    while it runs, the bit-set liveness, plain-typed helper calls and LLVM's simplification
    before numba's function passes (see the module's docstring)."""

    def define_pipelines(self):
        self.state.flags.enable_ssa = False
        return [_forward_copies(_swap_inliner(
            DefaultPassBuilder.define_nopython_pipeline(self.state)))]

    def _compile_core(self):
        with _bit_liveness(), _simplified_first(), _plain_helper_calls():
            return super()._compile_core()

