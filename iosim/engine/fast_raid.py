"""RAID's decisions for the fast engine: the member-I/O plan of a request, compiled.

The plan is :func:`iosim.devices.raid.raid_plan` and its helpers, the very functions the SimPy
model calls (through ``raid_map_tagged``), compiled with numba: each is rebuilt from its own
code with the compiled helpers in place of the Python ones, so nothing is copied. The event
plumbing (the fork-join of member I/Os, the controller cache, coalescing) lives in
:mod:`iosim.engine.fast`'s kernel.
"""

from __future__ import annotations

from ..devices import raid as _raid
from .jit import compiled_with as _compiled

_deps: dict = {}
for _name in ("_put", "_row_member", "_pieces_of", "_partial_row_plan", "_write_row_plan",
              "_parity_row_plan", "raid_mirror_choice", "_mirror_plan", "raid_plan",
              "raid_rebuild_plan", "raid_row_end_at"):
    _deps[_name] = _compiled(getattr(_raid, _name), _deps)

# a plan's columns
NIO = _raid.NIO
IO_MEMBER, IO_OFF, IO_BYTES, IO_TAG = _raid.IO_MEMBER, _raid.IO_OFF, _raid.IO_BYTES, _raid.IO_TAG

#: raid_plan(level, n, su, offset, size, is_read, failed, read_turn, policy, pend, head, rd, wr)
#: -> (reads, writes)
plan = _deps["raid_plan"]
#: raid_rebuild_plan(level, n, failed, offset, size, turn, rd) -> reads
rebuild_plan = _deps["raid_rebuild_plan"]
#: raid_row_end_at(level, n, su, offset, size) -> the member offset past the request's rows
row_end = _deps["raid_row_end_at"]
