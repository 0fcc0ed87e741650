"""The fast engine: the reference engine's event semantics in one numba-compiled event loop.

Same model, same answers. ``iosim.engine.simpy_engine`` is the definition; this module runs the
same processes as a state machine over arrays, so that a run of a million I/Os takes a fraction
of a second. Devices: the generic device, the cloud volume (token buckets) and the flash SSD
(dies, channels, host link per direction, read buffer with back-pressure, write buffer whose
dirty data the free dies program in the background, GC die time: ``SsdModel``'s processes, one
per die a request touches, joined as its ``AllOf`` joins them, and one per die programming
buffered data), the hard disk (``HddModel``: NCQ tags, the actuator process with FIFO or
SPTF, write cache, read-ahead; its decisions in :mod:`iosim.engine.fast_hdd`) and RAID over
members of every family (``RaidModel``: the member-I/O plan of ``raid_plan``, compiled in
:mod:`iosim.engine.fast_raid`; one process per member I/O joined as its ``AllOf`` joins them;
the controller cache, destage limit and coalescing; degraded mode, a member failing mid-run
and its rebuild onto a spare; each member its own state and stream: a disk's, an SSD's
instance, a cloud volume's buckets) and the array over
RAID groups (``ArrayModel``: front-end cores, read hits, the mirrored cache destaged with a
limit and a pace, each group's ``RaidModel.serve`` inline, one set of RAID state per group);
arrays over other groups (``supports`` names them) run on the reference engine.

* **One event per state change.** A process step that SimPy would resume (a timeout, a granted
  resource, a succeeded event) is one entry in the event list. Timed events go in a binary heap
  ordered by (time, sequence number); events that SimPy triggers "now" go in a FIFO ring and
  process starts (SimPy's urgent ``Initialize``) in a second ring that runs first. That is
  exactly SimPy's (time, priority, event id) order, so ties at equal times are broken as the
  reference breaks them. The few SimPy events that can never change anything (the Release of
  a resource that can never have a waiter, the end of an SSD's background program, which
  nobody waits for) are left out.
* **Same random numbers.** The named streams of :mod:`iosim.rng` (``io``, ``device``,
  ``arrivals``, ``host.job<j>``) are passed in as NumPy generators, which numba compiles
  natively (no Python per draw); each stream is drawn in the same order as in the reference.
  So a run gives the same Results as the reference, figure for figure, on random stacks as on
  deterministic ones, and common random numbers across a sweep are kept.
* **Shared physics.** The physics (``generic_service_s``, ``bucket_take``, ``bucket_cost``,
  ``ssd_pages``, ``ssd_die_of_page``, ``ssd_page_slow``, RAID's ``raid_plan``,
  ``raid_rebuild_plan`` and ``raid_row_end_at``, the array's ``array_group_of`` and
  ``array_read_hit``) and the sampler (``sample_code``) are the very functions the reference
  uses, compiled with ``numba.njit``; nothing is copied. The histogram bucketing is
  ``fast_core.bucket_of``, which reads the float's bits instead of calling ``math.frexp`` like
  the Recorder's ``bucket_index`` (tested equal on every finite value). The HDD's are the
  one-address forms in
  ``iosim.devices.hdd`` (``*_one``) of the array functions ``HddModel`` calls, equal to them
  bit for bit (tested). The compile cache is keyed on those files too, so
  editing one recompiles.
* **Bounded memory.** Statistics stream into the same log-linear histograms, time averages
  and batch means as :class:`iosim.engine.simpy_engine.Recorder`; nothing per I/O is kept.

Public: :func:`supports`, :func:`run_fast` (a :class:`~iosim.results.Results`) and
:func:`run_fast_sim` (an object shaped like ``simpy_engine.Simulation`` for code that reads
``sim.rec``, such as ``simulate._results`` and ``_combine``).
"""

from __future__ import annotations

import functools
import math
import time
import types
from collections import namedtuple
from dataclasses import dataclass, fields
from types import SimpleNamespace

import numba
import numpy as np
from numba.typed import List

from ..devices import under_workload
from ..devices.array import ArrayDevice
from ..devices.cloud import (
    COST_CODES,
    CloudDevice,
    bucket_plan,
)
from ..devices.generic import GenericDevice
from ..devices.hdd import HddDevice
from ..devices.raid import RAID_PHASES, RaidDevice, raid_level_code, raid_plan_rows
from ..devices.ssd import SsdDevice
from ..dists import EMPIRICAL, Distribution, dist_args
from ..results import Results
from ..rng import Streams
from ..spec import SpecError, UnstableError
from ..stack import Stack
from ..workload import Workload
from . import fast_array_steps as fas
from . import (
    fast_cache,  # noqa: F401  (the cache locator, installed before the kernel is decorated)
    fast_core,
    fast_stats,
    path_choice,
    progress,
)
from . import fast_cloud_steps as fcs
from . import fast_device_steps as fdev
from . import fast_hdd as fh
from . import fast_hdd_steps as fhs
from . import fast_host_steps as fhost
from . import fast_multipath as fmp
from . import fast_path_steps as fps
from . import fast_raid_steps as frs
from . import fast_ssd_steps as fss
from .fast_codes import (
    ARRAY_COUNTERS,
    BEYOND,
    C_ATFREE,
    C_FC,
    C_FH,
    C_HN,
    C_OVF,
    C_RR,
    C_SEQ,
    C_UC,
    C_UH,
    C_WC,
    C_WH,
    CF_BLOCK_BYTES,
    CF_BYTES,
    DEV_ARRAY,
    DEV_CLOUD,
    DEV_GENERIC,
    DEV_HDD,
    DEV_RAID,
    DEV_SSD,
    F_ALIGN,
    F_BW,
    F_CONTENTION,
    F_FO,
    F_GAP,
    F_IO_UNIT,
    F_LAT,
    F_MAXB,
    F_MEDIA,
    F_OVH_A,
    F_OVH_B,
    F_PROG2_A,
    F_PROG2_B,
    F_PROG_A,
    F_PROG_B,
    F_PZ_A,
    F_PZ_B,
    F_PZ_RATE,
    F_R_BW,
    F_R_IOPS,
    F_RF,
    F_SPAN,
    F_SPEED,
    F_SSD_CHRATE,
    F_SSD_GC,
    F_SSD_HOST_BW,
    F_SSD_OVH,
    F_SSD_PAGE,
    F_SSD_UNIT,
    F_SSD_WBUF,
    F_SSD_XFER,
    F_SVC2_A,
    F_SVC2_B,
    F_SVC_A,
    F_SVC_B,
    F_THINK,
    F_W_BW,
    F_W_IOPS,
    H_BLOCK,
    H_DEVICE,
    H_LAT,
    H_READ,
    H_WRITE,
    K_A_CORE,
    K_A_FIRST,
    K_A_LAST,
    K_DEV_ARRIVE,
    K_DEV_GO,
    K_DEV_LAST,
    K_DEV_QUEUE,
    K_FINISH,
    K_HDD_FIRST,
    K_HDD_LAST,
    K_HDD_LOOP,
    K_HDD_TAG,
    K_HOST_LAST,
    K_M_GRANT,
    K_P_FIRST,
    K_P_LAST,
    K_PE_START,
    K_R_CMD,
    K_R_FIRST,
    K_R_LAST,
    K_R_OVH,
    K_SSD_AFTERCH,
    K_SSD_DGRANT,
    K_SSD_FIRST,
    K_SSD_FORK,
    K_SSD_LAST,
    K_SSD_OVH,
    KB,
    KMASK,
    L_BELOW,
    L_BLOCK,
    L_BUSY,
    L_DEVICE,
    L_HOST,
    N_BATCH_K,
    N_BLOCK,
    N_DEVICE,
    N_READ,
    N_WRITE,
    NFP,
    NIP,
    NRC,
    NRCF,
    NRP,
    OK,
    OVERFLOW,
    P_ATCAP,
    P_BSIZE,
    P_DEVKIND,
    P_DPCAP,
    P_DRAW_IO,
    P_FAULTS,
    P_HOST_CPUS,
    P_IOCAP,
    P_IODEPTH,
    P_IOS,
    P_LINK_FINITE,
    P_MAXREQ,
    P_NBATCH,
    P_NFAIL,
    P_NJOBS,
    P_NPATHS,
    P_NR,
    P_NR_ON,
    P_NSIZES,
    P_OPEN,
    P_OVH_CODE,
    P_OVH_ON,
    P_PAUSES,
    P_POISSON,
    P_POLICY,
    P_PROG2_CODE,
    P_PROG_CODE,
    P_PROG_SLOW,
    P_PROGRESS,
    P_PZ_CODE,
    P_QD,
    P_RANDOM,
    P_RQCAP,
    P_SERIAL,
    P_SSD_C,
    P_SSD_D,
    P_SSD_LINK,
    P_SSD_PLANES,
    P_SSD_RBUFP,
    P_SSD_SLOW,
    P_SVC2_CODE,
    P_SVC_CODE,
    P_TRACE,
    P_UNITS,
    P_WARMUP,
    R_CAP,
    R_NOWAIT,
    R_QBASE,
    R_QCAP,
    RC_CACHED,
    RC_DESTAGES,
    RC_FAILED_NOW,
    RC_LOST,
    RC_MR_FG,
    RC_MREADS,
    RC_MW_FG,
    RC_MWRITES,
    RC_PDR,
    RC_PREQ,
    RC_REQUESTS,
    RC_RESERVED,
    RCF_FAILED_AT,
    RCF_PLAT,
    RCF_RB_ENDED,
    RCF_RB_STARTED,
    RCF_REBUILT,
    RCF_TARGET,
    RP_A_CACHE,
    RP_A_DLIMIT,
    RP_A_EXTENT,
    RP_A_HIT,
    RP_A_MIRROR,
    RP_A_RATE,
    RP_A_UNITS,
    RP_AOCAP,
    RP_CACHE,
    RP_CCOUNT,
    RP_CTIMEOUT,
    RP_DLIMIT,
    RP_FAIL_AT,
    RP_FAILED,
    RP_FE_A,
    RP_FE_B,
    RP_FE_CODE,
    RP_GROUPS,
    RP_LEVEL,
    RP_LIVE,
    RP_MKIND,
    RP_MNBK,
    RP_MUNITS,
    RP_N,
    RP_OVH,
    RP_POLICY,
    RP_PROWS,
    RP_RB_RATE,
    RP_RB_START,
    RP_RB_STEP,
    RP_RB_TARGET,
    RP_REBUILD,
    RP_ROCAP,
    RP_SU,
    SP_RAID,
    SP_READ,
    SP_WRITE,
    STALLED,
    T_BUFFERED,
    T_CACHE_READS,
    T_CACHE_WRITES,
    T_COMPLETED,
    T_FAILOVERS,
    T_ISSUED,
    T_MEDIA_READS,
    T_MEDIA_WRITES,
    T_PAGE_PROGS,
    T_PAGE_READS,
    T_STATUS,
    T_THROTTLED,
    TR_NONE,
)
from .fast_core import (
    Events,
    Owners,
    Spaces,
    free_owners,
    heap_pop,
    res_request,
    ring_pop,
    unmanaged_generator,
    unmanaged_list,
)
from .fast_core import schedule as fc_schedule
from .fast_core import unmanaged as _um
from .fast_stats import (
    NBINS,
    Levels,
    hist_bucket,
    level_change,
    new_recording,
)
from .fast_steps import push_start
from .jit import AT_SET_UP, announce_compile
from .kernel_compiler import KernelCompiler
from .recorder import Batches, LogHist, TimeAvg, batches_for
from .summary import results_of
from .trace_source import TraceSource, reading

__all__ = ["supports", "run_fast", "run_fast_sim", "FastSimulation", "results_of"]

# the compile cache that knows the shared physics: engine/fast_cache.py

_bucket = hist_bucket  # (recorder.bucket_index off the float's bits; tested equal)


# what a cloud request pays each token bucket (the "what" of bucket_plan)
CLOUD_COSTS = COST_CODES

NCTL = 14
assert (C_WH, C_WC, C_RR) == (fmp.C_WH, fmp.C_WC, fmp.C_RR)  # fast_multipath's slots
assert (C_HN, C_SEQ, C_UH, C_UC, C_FH, C_FC, C_OVF) == (  # the slots fast_core uses
    fast_core.C_HN, fast_core.C_SEQ, fast_core.C_UH, fast_core.C_UC, fast_core.C_FH,
    fast_core.C_FC, fast_core.C_OVF) and NCTL == fast_core.NCTL
assert L_HOST == fast_stats.HOST_LEVEL  # (the level whose depth histogram is kept)

POLICY_CODES = path_choice.POLICY_CODES


# I/Os an open-loop run makes room for at first (the pools double, and the run restarts with
# the same seed, whenever more are in flight)
OPEN_LOOP_POOL = 1024
# open loop: more I/Os than this in flight means the rate exceeds what the stack serves
MAX_OPEN_BACKLOG = 1 << 20



# -- progress of one long run --------------------------------------------------------------------
# A run shown on a progress bar (``engine.progress``) reports its completions every
# PROGRESS_EVERY from the compiled loop, through numba's object mode.
PROGRESS_EVERY = 1 << 20


# -- the compiled event loop ---------------------------------------------------------------------
# The kernel keeps the event loop and what ties the stack together; each part's steps and state
# are in its own module (fast_host_steps, fast_path_steps, fast_device_steps and a module per
# family), all inlined into it. Its state arrays are views without an owner
# (fast_core.unmanaged): numba reference-counted every array at every inlined call (~45 % of
# the run time in perf). Functions that are not inlined and take arrays stay slow (each array
# is passed as seven scalars): keep them off the per-event path.


@numba.njit(cache=True)
def _rng_list(g):
    """A typed list of generators (built in compiled code: no typed-list compile at run time)."""
    out = List()
    out.append(g)
    return out


@numba.njit(cache=True)
def _rng_list_add(lst, g):
    lst.append(g)


@numba.njit(inline="always")
def _new_resources(ip, d, ssd_state, rp, keep):
    """The resource table (``fast_core``'s columns) and its waiters' rings: 0 the device's
    units, 1 nr_requests, 2.. each job's CPU, then per path the link down and up; an SSD's
    (each member SSD's) dies, channels and host link out and in; RAID: each set's destage
    slots, each member's units (or NCQ tags), the array's front-end cores, destage slots and
    destage pace; last, the host's shared CPUs (``d``: the run's :data:`Dims`). Returns
    (table, rings, first destage slot, first member, the array's first)."""
    njobs, iodepth, npaths, nslots, atcap = d.njobs, d.iodepth, d.npaths, d.nslots, d.atcap
    n_sd, ocap, r_groups, r_stride, rocap = d.n_sd, d.ocap, d.r_groups, d.r_stride, d.rocap
    flash, raid, micap = d.flash, d.raid, d.micap
    nr_on = ip[P_NR_ON] != 0
    s_rstride, s_ndies, s_nch, s_dpc = (ssd_state.s_rstride, ssd_state.s_ndies,
                                        ssd_state.s_nch, ssd_state.s_dpc)
    r_link0 = 2 + njobs
    r_die0 = 2 + njobs + 2 * npaths
    nres = r_die0 + (n_sd * s_rstride if flash else 0) + (
        (r_groups * (1 + r_stride) + 3) if raid else 0) + 1
    res = _um(np.zeros((nres, 7), np.int64), keep)
    res[:, R_CAP] = 1
    res[:, R_QCAP] = 1
    res[0, R_CAP] = ip[P_UNITS]
    res[0, R_QCAP] = atcap
    res[1, R_CAP] = max(1, ip[P_NR])
    res[1, R_QCAP] = d.rqcap
    for j in range(njobs):
        res[2 + j, R_QCAP] = iodepth
    for p in range(npaths):
        res[r_link0 + 2 * p, R_QCAP] = atcap
        res[r_link0 + 2 * p + 1, R_QCAP] = atcap
    # SSD: each instance's dies (one process of an owner each at most), channels, link out, in
    if flash:  # (each die's background programs wait for it and its channel too)
        for sd in range(n_sd):
            sb = r_die0 + sd * s_rstride
            for die in range(s_ndies):
                res[sb + die, R_QCAP] = ocap + 1
            for c in range(s_nch):
                res[sb + s_ndies + c, R_QCAP] = (ocap + 1) * s_dpc
            res[sb + ssd_state.s_out, R_QCAP] = d.dpcap  # (read die processes cross it one by one)
            res[sb + ssd_state.s_out + 1, R_QCAP] = ocap
    r_destage = r_die0 + (n_sd * s_rstride if flash else 0)
    r_mem0 = r_destage + r_groups
    r_afront = r_mem0 + r_groups * r_stride
    if raid:
        for g in range(r_groups):
            res[r_destage + g, R_CAP] = int(rp[RP_DLIMIT])
            res[r_destage + g, R_QCAP] = rocap
        for dv in range(r_groups * r_stride):  # (and a spare)
            res[r_mem0 + dv, R_CAP] = int(rp[RP_MUNITS])
            res[r_mem0 + dv, R_QCAP] = min(micap, rocap * (d.prows // d.r_n + 1))
        res[r_afront, R_CAP] = max(1, int(rp[RP_A_UNITS]))
        res[r_afront, R_QCAP] = atcap
        res[r_afront + 1, R_CAP] = max(1, int(rp[RP_A_DLIMIT]))  # destage slots
        res[r_afront + 1, R_QCAP] = d.aocap
        res[r_afront + 2, R_QCAP] = d.aocap  # destage pace
    host_cpus = ip[P_HOST_CPUS]  # the host's shared CPUs (last: the others stay as they were)
    res[nres - 1, R_CAP] = max(1, host_cpus)
    res[nres - 1, R_QCAP] = max(1, nslots)
    for r in range(1, nres):
        res[r, R_QBASE] = res[r - 1, R_QBASE] + res[r - 1, R_QCAP]
    # A resource that can never have a waiter (more slots than possible holders) has inert
    # Release events: processing one serves nobody, so they need not be queued at all.
    maxreq = ip[P_MAXREQ]  # block requests that can exist at once (-1: no bound, open loop)
    if nr_on and maxreq >= 0 and res[1, R_CAP] >= maxreq:
        res[1, R_NOWAIT] = 1
    if not d.faults:  # (an attempt orphaned by a path failure holds the device past its slot)
        at_device = npaths * d.qd
        if nr_on:
            at_device = min(at_device, res[1, R_CAP])
        if maxreq >= 0:
            at_device = min(at_device, maxreq)
        if res[0, R_CAP] >= at_device:
            res[0, R_NOWAIT] = 1
        if d.qd <= 1:
            for p in range(2 * npaths):
                res[r_link0 + p, R_NOWAIT] = 1
    rq = _um(np.empty(res[nres - 1, R_QBASE] + res[nres - 1, R_QCAP], np.int64), keep)
    return res, rq, r_destage, r_mem0, r_afront


#: the run's dimensions, read off the parameters once: the jobs and their slots, the paths and
#: their queue depth, the pools (I/Os, block requests, path attempts), the scheduled path
#: failures, the device's family (and a RAID's members' family), an SSD's die processes and
#: instances (one, or one per RAID member and spare: an SSD step's owner is then a member
#: I/O, ``ocap`` of them at once), RAID's sets (members, stride with a spare, requests at a
#: set: attempts then array destages, ops, plan rows, member I/Os), the failing member (-1:
#: none; live: during the run), and the events RAID adds to the event list
Dims = namedtuple("Dims", (
    "njobs", "iodepth", "nslots", "npaths", "qd", "faults", "link_finite", "iocap", "rqcap",
    "atcap", "nfail", "devkind", "ssd", "hdd", "array", "raid", "raid_ssd", "raid_hdd",
    "raid_cloud", "flash", "dpcap", "n_sd", "ocap", "r_n", "r_groups", "r_stride", "aocap",
    "rrcap", "rocap", "prows", "micap", "r_failed", "r_faults", "r_live", "r_extra"))


@numba.njit(inline="always")
def _dims(ip, rp):
    """The run's :data:`Dims` for the parameters ``ip`` and (RAID, the array) ``rp``."""
    devkind = ip[P_DEVKIND]
    atcap = ip[P_ATCAP]
    array = devkind == DEV_ARRAY
    raid = devkind == DEV_RAID or array
    r_n = int(rp[RP_N]) if raid else 0
    r_groups = int(rp[RP_GROUPS]) if raid else 1
    r_stride = r_n + 1  # (each set's members and a spare)
    aocap = int(rp[RP_AOCAP]) if array else 1  # array destage processes at once
    rrcap = atcap + aocap
    rocap = int(rp[RP_ROCAP]) if raid else 1
    r_failed = int(rp[RP_FAILED]) if raid else -1
    prows = int(rp[RP_PROWS]) if raid else 1  # plan rows of one request
    micap = rocap * prows if raid else 1
    mkind = int(rp[RP_MKIND]) if raid else -1
    raid_ssd = mkind == DEV_SSD
    flash = devkind == DEV_SSD or raid_ssd
    n_sd = r_groups * r_stride if raid_ssd else 1
    ocap = max(atcap, micap) if raid_ssd else atcap
    r_live = r_failed >= 0 and rp[RP_LIVE] != 0.0
    r_extra = (micap + rocap + rrcap + r_groups * (r_stride + 4)) if raid else 0  # (events)
    # (numba refuses a call this long with a conditional expression among its arguments)
    return Dims(
        ip[P_NJOBS], ip[P_IODEPTH], ip[P_NJOBS] * ip[P_IODEPTH], ip[P_NPATHS], ip[P_QD],
        ip[P_FAULTS] != 0, ip[P_LINK_FINITE] != 0, ip[P_IOCAP], ip[P_RQCAP], atcap,
        ip[P_NFAIL], devkind, devkind == DEV_SSD, devkind == DEV_HDD, array, raid, raid_ssd,
        mkind == DEV_HDD, mkind == DEV_CLOUD, flash, ip[P_DPCAP], n_sd, ocap, r_n, r_groups,
        r_stride, aocap, rrcap, rocap, prows, micap, r_failed, r_failed >= 0, r_live, r_extra)


@numba.njit(inline="always")
def _new_state(ip, fp, d, sizes, cdf, slots, ovh_samples, fe_samples, fail_path, fail_at,
               restore_at, buckets, trace, hp, hxp, hfp, rp, rc, rcf, pz_samples, s_read, s_read2,
               s_prog, s_prog2, keep):
    """Every part's state for a run of dimensions ``d`` (:data:`Dims`): the event list and the
    resources, the host, the path, the device's boundary, the FifoSpaces, each family's (SSD,
    HDD, RAID, the array, the cloud's buckets), the Recorder's; the views kept alive by
    ``keep``. ``trace``: the trace's buffers; ``s_*``: the service times (dist_args's form)."""
    atcap, micap, raid, r_groups, r_stride = d.atcap, d.micap, d.raid, d.r_groups, d.r_stride
    # SSD: each instance's state (fast_ssd_steps.new_ssd_state); its resources: dies,
    # channels, the host link out and in, from r_die0 + sd * s_rstride
    r_die0 = 2 + d.njobs + 2 * d.npaths
    sp_m0 = 3 + r_groups  # (a RAID of SSDs: each member's two spaces from here)
    ssd_state = fss.new_ssd_state(ip, fp, d.n_sd, d.ocap, d.dpcap, d.flash, r_die0, sp_m0,
                                  d.raid_ssd, s_read, s_read2, s_prog, s_prog2, keep)
    # event list: heap of timed events, FIFO ring of events triggered now, ring of starts;
    # the resources (_new_resources)
    res, rq, r_destage, r_mem0, r_afront = _new_resources(ip, d, ssd_state, rp, keep)
    nres = res.shape[0]
    hcap = d.nslots + d.rqcap + 2 * atcap + d.dpcap + d.nfail + 8 + d.r_extra
    ucap = d.nslots + d.rqcap + atcap + d.dpcap + d.nfail + 8 + d.r_extra
    fcap = (2 * (d.nslots + d.iocap + d.rqcap + 2 * atcap + 2 * d.dpcap + nres + d.npaths
                 + d.nfail) + 16 + 2 * d.r_extra)
    ev = Events(_um(np.empty(hcap), keep), _um(np.empty(hcap, np.int64), keep),
                _um(np.empty(hcap, np.int64), keep), _um(np.empty(ucap, np.int64), keep),
                _um(np.empty(fcap, np.int64), keep), _um(np.zeros(NCTL, np.int64), keep), res,
                rq)
    r_link0 = 2 + d.njobs
    # the host (fast_host_steps): job slots, arrivals, I/Os, block requests, the trace
    tr_arr, tr_off, tr_size, tr_read, tr_gap, tr_lat, tr_issue, tr_done = trace
    host = fhost.new_host(ip, fp, sizes, cdf, slots, ovh_samples, tr_arr, tr_off, tr_size,
                          tr_read, tr_gap, tr_lat, tr_issue, tr_done, d.iocap, d.rqcap,
                          np.int64(1), np.int64(2), nres - 1, keep)
    # multipath: the paths, the host queue, the scheduled failures (fast_path_steps)
    paths = fps.new_paths(d.npaths, d.rqcap, fail_path, fail_at, restore_at, d.qd, ip[P_POLICY],
                          d.faults, d.link_finite, fp[F_LAT], fp[F_BW], fp[F_FO], r_link0, keep)
    requests = fps.new_requests(host.rq_size, host.rq_read, keep)
    attempts = fps.new_attempts(atcap, keep)
    ev.ctl[C_ATFREE] = atcap
    # the device's boundary (fast_device_steps): the generic device, pauses, device figures
    dev = fdev.new_device(d.devkind, s_read, s_read2, fp[F_MEDIA], fp[F_CONTENTION],
                          np.int64(0), d.link_finite, r_link0, ip[P_PAUSES] != 0, pz_samples,
                          ip[P_PZ_CODE], fp[F_PZ_RATE], fp[F_PZ_A], fp[F_PZ_B], atcap, keep)
    # the FifoSpaces: an SSD's (write buffer bytes, read buffer pages), each RAID set's cache,
    # the array's, then (a RAID of SSDs) each member SSD's two from sp_m0 + 2 * sd: room,
    # waiters' codes, amounts
    nsp = sp_m0 + (2 * d.n_sd if d.raid_ssd else 0)
    sp_free = _um(np.zeros(nsp), keep)
    sp_free[SP_WRITE] = ssd_state.s_wbuf
    sp_free[SP_READ] = float(ssd_state.s_rbufp)
    for g in range(r_groups):
        sp_free[SP_RAID + g] = rp[RP_CACHE] if raid else 0.0
    sp_free[SP_RAID + r_groups] = rp[RP_A_CACHE] if d.array else 0.0
    for sd in range(d.n_sd if d.raid_ssd else 0):
        sp_free[sp_m0 + 2 * sd] = ssd_state.s_wbuf
        sp_free[sp_m0 + 2 * sd + 1] = float(ssd_state.s_rbufp)
    spcap = max(1, atcap, d.dpcap, d.rrcap if raid else 1, micap if d.raid_ssd else 1)
    spaces = Spaces(sp_free, _um(np.zeros((nsp, spcap), np.int64), keep),
                    _um(np.zeros((nsp, spcap)), keep),
                    _um(np.zeros((nsp, 2), np.int64), keep))  # per space: head, count
    # HDD (HddModel): each disk's state (fast_hdd_steps.new_hdd_state); a RAID of disks: one
    # per member (and a spare each); a RAID of cloud volumes: each member its own m_nbk rows of
    # the token buckets
    m_nbk = int(rp[RP_MNBK]) if d.raid_cloud else 0
    ndisks = r_groups * r_stride if d.raid_hdd else 1
    h_tags = int(rp[RP_MUNITS]) if d.raid_hdd else max(1, atcap)  # commands a disk holds
    h_bad = _um(np.zeros(2), keep)  # an I/O beyond the capacity: offset, size
    hdd_state = fhs.new_hdd_state(hp, hxp, hfp, ndisks, h_tags, max(atcap, micap), h_bad, keep)
    # RAID (RaidModel): the sets, their ops and member I/Os (fast_raid_steps); a member I/O's
    # member and range are the steps' owners (Owners)
    raid_state = frs.new_raid_state(rp, rc, rcf, raid, d.r_n, r_groups, d.rrcap, d.r_failed,
                                    d.r_live, r_mem0, r_destage, d.prows, micap, d.rocap, atcap,
                                    d.raid_hdd, d.raid_cloud, d.raid_ssd, m_nbk, fp[F_SSD_OVH],
                                    keep)
    owners = Owners(host.rq_off, attempts.at_req, attempts.at_size, attempts.at_read,
                    _um(np.zeros(micap, np.int64), keep), _um(np.zeros(micap), keep),
                    _um(np.zeros(micap), keep),
                    _um(np.zeros(micap, np.bool_), keep))  # member I/Os: dev, off, size, read
    rs = raid_state
    array_state = fas.new_array_state(rp, rc, d.aocap, rs.rr_off, rs.rr_size, rs.rr_read,
                                      rs.rr_t0, rs.rr_grp, r_groups, atcap, r_afront,
                                      fe_samples, keep)
    # statistics: the Recorder's histograms, time averages and batch means (fast_stats); each
    # member's busy units (a failing member's are withdrawn when it dies)
    rec = new_recording(NBINS, ip[P_NBATCH], d.iocap + 2, keep)
    nbusy = max(1, ndisks, r_groups * r_stride)
    lvs = Levels(rec.lv, rec.lvl, rec.qdh, _um(np.zeros(nbusy, np.int64), keep),
                 _um(np.zeros(nbusy, np.int64), keep))
    member_draw = frs.ServiceDraw(s_read[0], s_read[1], s_read[2], s_read[3], s_read2[0],
                                  s_read2[1], s_read2[2], s_read2[3], fp[F_MEDIA])
    return (ev, host, paths, requests, attempts, dev, spaces, ssd_state, hdd_state, raid_state,
            frs.new_raid_ops(d.rocap, d.prows, keep), frs.new_member_ios(micap, keep), owners,
            array_state, rec, lvs, fcs.CloudState(buckets, fp), member_draw, h_bad, r_mem0,
            r_afront)


# The kernel is compiled twice (``_compiled_kernel``): with the disk families' steps (HDD,
# RAID, the array: WITH_DISK) or with the flash ones (SSD, cloud: WITH_FLASH). Each flag is a
# compile-time constant, so the other family's steps are dead code numba drops: they made the
# steps that remain slower (a larger loop is optimised worse) and each variant's compile longer.
# The two compile at once at set-up, one per core (``iosim.warmup``).
WITH_DISK = True
WITH_FLASH = True


def _kernel_py(ip, fp, sizes, cdf, slots, svc_samples, svc2_samples, ovh_samples, fe_samples,
               fail_path, fail_at, restore_at, buckets, rng_io, rng_dev, rng_arr, job_rngs,
               tr_arr, tr_off, tr_size, tr_read, tr_gap, tr_lat, tr_issue, tr_done, hp, hxp,
               hfp, rp, rc, rcf, mrngs, rng_pause, pz_samples):
    d = _dims(ip, rp)
    devkind, raid, hdd, ssd, array, raid_ssd = d.devkind, d.raid, d.hdd, d.ssd, d.array, d.raid_ssd
    nbk = buckets.shape[0]  # cloud token buckets: rate, capacity, cost code, tokens, t_last
    s_ovh = fp[F_SSD_OVH]  # the SSD's controller overhead
    throttle_s = 0.0
    # The state arrays are unmanaged views (fast_core.unmanaged: no reference counting in the
    # step functions); ``keep`` holds their owners until the results are copied out at the end.
    keep = [np.empty(0, np.uint8)]
    rng_io = unmanaged_generator(rng_io)  # (the caller's arguments keep them alive)
    rng_dev = unmanaged_generator(rng_dev)
    rng_arr = unmanaged_generator(rng_arr)
    rng_pause = unmanaged_generator(rng_pause)
    job_rngs = unmanaged_list(job_rngs)  # (passed to the host's steps)
    hp, hxp, hfp = _um(hp, keep), _um(hxp, keep), _um(hfp, keep)  # (the HDD's, per pick)
    buckets = _um(buckets, keep)  # (the cloud volume's, or each RAID member volume's)
    fp, rp, rc, rcf = _um(fp, keep), _um(rp, keep), _um(rc, keep), _um(rcf, keep)
    svc_samples, svc2_samples = _um(svc_samples, keep), _um(svc2_samples, keep)
    # the service times (dist_args's form): the device's (an SSD's page reads), the writes'
    # (a cloud volume's; an SSD's slow page reads), an SSD's page programs (never empirical)
    s_read = (ip[P_SVC_CODE], fp[F_SVC_A], fp[F_SVC_B], svc_samples)
    s_read2 = (ip[P_SVC2_CODE], fp[F_SVC2_A], fp[F_SVC2_B], svc2_samples)
    (ev, host, paths, requests, attempts, dev, spaces, ssd_state, hdd_state, raid_state, ops,
     member_ios, owners, array_state, rec, lvs, cloud_state, member_draw, h_bad, r_mem0,
     r_afront) = _new_state(
        ip, fp, d, sizes, cdf, slots, ovh_samples, _um(fe_samples, keep), fail_path, fail_at,
        restore_at, buckets, (tr_arr, tr_off, tr_size, tr_read, tr_gap, tr_lat, tr_issue,
                              tr_done), hp, hxp, hfp, rp, rc, rcf, pz_samples, s_read, s_read2,
        (ip[P_PROG_CODE], fp[F_PROG_A], fp[F_PROG_B], svc_samples),
        (ip[P_PROG2_CODE], fp[F_PROG2_A], fp[F_PROG2_B], svc_samples), keep)
    ht, ctl, res, rq, tot = ev.ht, ev.ctl, ev.res, ev.rq, rec.tot

    # -- run --------------------------------------------------------------------------------
    now = 0.0
    status = OK
    rc[:, RC_FAILED_NOW] = -1  # (RAID: no member failed yet)
    if WITH_DISK and raid and d.r_faults:  # each set's failure and rebuild, before the jobs
        frs.start_sets(ev, rp, rc, rcf, d.r_groups, d.r_failed, d.r_live)
    measuring = fhost.host_start(now, ev, rec, host)
    n_io, n_rq = d.iocap, d.rqcap  # the I/O and block-request pools' free counts
    for e in range(d.nfail):
        push_start(ev, (e << KB) | K_PE_START)

    while True:
        # the next event in SimPy's order: starts due now, timed events due now (scheduled
        # earlier), events triggered now (in trigger order), then the clock moves on
        if ctl[C_UC] > 0:
            code = ring_pop(ev.uq, ctl, C_UH, C_UC)
        elif ctl[C_HN] > 0 and (ht[0] == now or ctl[C_FC] == 0):
            now = ht[0]
            code = heap_pop(ht, ev.hs, ev.hc, ctl)
        elif ctl[C_FC] > 0:
            code = ring_pop(ev.fq, ctl, C_FH, C_FC)
        else:
            status = STALLED
            break
        k = code & KMASK
        x = code >> KB
        if k == K_FINISH:
            break
        act = 0  # what the step waits on, done last: 1 a timeout, 2 a resource request
        a_delay = 0.0
        a_code = 0
        a_res = 0
        k_after = -1
        acq_front = False
        while k >= 0:  # a process runs on (k: its next step) until it waits again (k < 0)
            if k <= K_HOST_LAST:  # ---- the host: jobs, arrivals, I/Os, block requests
                k, x, act, a_delay, a_code, a_res, n_io, n_rq, measuring = fhost.host_step(
                    k, x, now, act, a_delay, a_code, a_res, n_io, n_rq, measuring, ev, lvs, rec,
                    host, rng_io, rng_arr, job_rngs)
            elif k == K_DEV_ARRIVE:  # ---- the device: an attempt arrives at its family's serve
                dev.at_tdev[x] = now
                level_change(rec.lv, rec.lvl, rec.qdh, L_DEVICE, now, 1)
                if WITH_FLASH and devkind == DEV_CLOUD:  # CloudModel.serve: tokens in order
                    wait = fcs.cloud_take(cloud_state, 0, nbk, attempts.at_size[x],
                                          attempts.at_read[x], now)
                    if wait > 0:
                        tot[T_THROTTLED] += 1
                        throttle_s += wait
                        act, a_delay, a_code = 1, wait, (x << KB) | K_DEV_GO
                        k = -1
                    else:
                        k = K_DEV_QUEUE
                elif WITH_DISK and hdd:  # HddModel.serve: an NCQ tag
                    act, a_res, a_code = 2, 0, (x << KB) | K_HDD_TAG
                    k = -1
                elif WITH_DISK and array:  # ArrayModel.serve: a front-end core
                    act, a_res, a_code = 2, r_afront, (x << KB) | K_A_CORE
                    k = -1
                elif WITH_DISK and raid:  # RaidModel.serve: the controller overhead holds nothing
                    r_ovh = frs.raid_arrive(raid_state, x, host.rq_off[attempts.at_req[x]],
                                            attempts.at_size[x], attempts.at_read[x], now)
                    if r_ovh > 0:
                        act, a_delay, a_code = 1, r_ovh, (x << KB) | K_R_OVH
                        k = -1
                    else:
                        k = K_R_CMD
                elif WITH_FLASH and ssd:  # SsdModel.serve: the controller overhead holds nothing
                    if s_ovh > 0:
                        act, a_delay, a_code = 1, s_ovh, (x << KB) | K_SSD_OVH
                        k = -1
                    else:
                        k = K_SSD_FORK
                else:
                    k = K_DEV_QUEUE
            elif k <= K_DEV_LAST:  # ---- the device: a unit, a release, the completion
                k, act, a_delay, a_code, a_res = fdev.device_step(
                    k, x, now, act, a_delay, a_code, a_res, measuring,
                    ev, lvs, rec, dev, attempts, rng_dev, rng_pause)
            elif WITH_DISK and K_HDD_FIRST <= k <= K_HDD_LAST:  # ---- HDD (HddModel)
                k, act, a_delay, a_code, status = fhs.hdd_step(
                    k, x, now, act, a_delay, a_code, ev, lvs, hdd_state, owners, tot, raid,
                    r_mem0, 0,
                    unmanaged_generator(mrngs[x]) if raid and k == K_HDD_LOOP else rng_dev)
                if status == BEYOND:
                    break
            elif WITH_DISK and K_A_FIRST <= k <= K_A_LAST:  # ---- the array (ArrayModel)
                k, x, act, a_delay, a_code, a_res = fas.array_step(
                    k, x, now, act, a_delay, a_code, a_res, ev, lvs, spaces, array_state, owners,
                    rng_dev)
            elif WITH_DISK and K_R_FIRST <= k <= K_R_LAST:  # ---- RAID (RaidModel)
                k, x, act, a_delay, a_code, a_res = frs.raid_step(
                    k, x, now, act, a_delay, a_code, a_res, ev, lvs, spaces, raid_state, ops,
                    member_ios, owners, member_draw, cloud_state,
                    unmanaged_generator(mrngs[owners.mi_dev[x]]) if k == K_M_GRANT else rng_dev)
            elif WITH_FLASH and K_SSD_FIRST <= k <= K_SSD_LAST:  # ---- SSD (SsdModel)
                k, act, a_delay, a_code, a_res = fss.ssd_step(
                    k, x, now, act, a_delay, a_code, a_res, ev, lvs, spaces, ssd_state, owners,
                    tot, unmanaged_generator(mrngs[ssd_state.dp_sd[x]]) if raid_ssd and (
                        k == K_SSD_DGRANT or k == K_SSD_AFTERCH) else rng_dev)
            elif K_P_FIRST <= k <= K_P_LAST:  # ---- the path: multipath, link, failover
                k, x, act, a_delay, a_code, a_res, k_after, acq_front = fps.path_step(
                    k, x, now, act, a_delay, a_code, a_res, k_after, acq_front, ev, lvs, paths,
                    requests, attempts, tot)
            else:  # an unknown step: a bug
                k = -2
            if k == -2:
                status = STALLED
        if act == 1:
            fc_schedule(ht, ev.hs, ev.hc, ev.fq, ctl, now, a_delay, a_code)
        elif act == 2:
            res_request(res, rq, a_res, a_code, ev.fq, ctl)
        if ctl[C_OVF] != 0:
            status = OVERFLOW
            break
        if status == BEYOND:
            break
    return _finish(now, status, throttle_s, host, rec, h_bad, keep)


@numba.njit(inline="always")
def _finish(now, status, throttle_s, host, rec, h_bad, keep):
    """The run's end: a trace's last completions flushed, the levels closed at ``now``, and
    the figures copied out of the state's views before their owners are freed."""
    tot = rec.tot
    if host.hc[fhost.HC_TR_NOUT] > 0:  # the last completions of a trace
        fhost.trace_call(fhost.TRACE_FLUSH, host.hc[fhost.HC_TR_NOUT], host.ht[fhost.HT_TR_T0])
    for i in range(5):
        level_change(rec.lv, rec.lvl, rec.qdh, i, now, 0)
    tot[T_STATUS] = status
    out_f = np.array([host.ht[fhost.HT_T_START], host.ht[fhost.HT_T_END], now,
                      rec.cf[CF_BYTES], rec.cf[CF_BLOCK_BYTES], throttle_s, h_bad[0], h_bad[1]])
    out = (tot.copy(), rec.cnt.copy(), out_f, rec.hist.copy(), rec.hn.copy(), rec.hf.copy(),
           rec.lv.copy(), rec.lvl.copy(), rec.qdh.copy(), rec.b_sums.copy(),
           rec.b_counts.copy(), rec.b_tend.copy(), rec.b_hist.copy())
    free_owners(keep)  # the views' owners are freed here, after the copies
    return out


# Names the kernel assigns a constant and other values to (event kinds, statuses, counters,
# flags): numba would type each as the literal it first sees; without SSA renaming
# (kernel_compiler.KernelCompiler) they need their type said. Every name keeps one type.
_LOCALS = {name: numba.int64 for name in (
    "k", "status", "k_after", "act", "a_code", "a_res", "n_io", "n_rq")}
_LOCALS.update({name: numba.boolean for name in ("acq_front", "measuring")})


def _compiled_kernel(name: str, *, disk: bool, flash: bool):
    """``_kernel_py`` compiled (and cached under ``name``) with the disk steps (HDD, RAID, the
    array), the flash ones (SSD, cloud), or both (a RAID of SSDs). All have the stack and the
    generic device."""
    scope = dict(globals())
    scope["WITH_DISK"] = disk
    scope["WITH_FLASH"] = flash
    fn = types.FunctionType(_kernel_py.__code__, scope, name)
    fn.__qualname__ = name
    return numba.njit(cache=True, pipeline_class=KernelCompiler, locals=_LOCALS)(fn)


_kernel = _compiled_kernel("_kernel", disk=False, flash=True)
_kernel_disk = _compiled_kernel("_kernel_disk", disk=True, flash=False)
# RAID over SSDs (alone or as an array's groups): both families' steps, compiled on first use
# (announced; set-up compiles the two above only, which every preset and notebook uses)
_kernel_all = _compiled_kernel("_kernel_all", disk=True, flash=True)


def kernel_for(device) -> object:
    """The compiled kernel variant that has this device's steps."""
    group = device.group if isinstance(device, ArrayDevice) else device
    if isinstance(group, RaidDevice) and isinstance(group.member, SsdDevice):
        return _kernel_all
    return _kernel_disk if isinstance(device, (HddDevice, RaidDevice, ArrayDevice)) else _kernel


# -- Python side ---------------------------------------------------------------------------------

_KNOWN = {
    "host": {"overhead", "cpus"},
    "block": {"nr_requests", "max_sectors_bytes"},
    "hba": {"queue_depth"},
    "multipath": {"paths", "policy", "failover_timeout_s", "failures"},
    "link": {"latency_s", "bandwidth_Bps"},
    "pauses": {"rate_hz", "duration"},
}
_KNOWN_DEVICE = {
    GenericDevice: {"units", "service", "media_rate_Bps", "contention"},
    CloudDevice: {"latency", "write_latency", "units", "media_rate_Bps", "iops_limit",
                  "read_iops_limit", "write_iops_limit", "bandwidth_limit_Bps",
                  "read_bandwidth_limit_Bps", "write_bandwidth_limit_Bps", "cap_model",
                  "io_unit_bytes", "bucket_s", "burst_iops", "burst_credits"},
    SsdDevice: {"channels", "dies_per_channel", "planes_per_die", "page_bytes",
                "pages_per_block", "read_s", "read_slow_s", "program_s", "program_slow_s",
                "erase_s", "channel_rate_Bps", "controller_overhead_s", "host_interface_Bps",
                "read_buffer_bytes", "write_buffer_bytes", "gc", "over_provisioning",
                "fullness", "write_amplification"},
    HddDevice: {"capacity_bytes", "sector_bytes", "rpm", "avg_seek_s", "track_to_track_s",
                "full_stroke_s", "seek_knee_frac", "write_settle_s", "heads", "head_switch_s",
                "media_rate_od_Bps", "media_rate_id_Bps", "interface_Bps", "overhead_s",
                "rotation", "queue_depth", "scheduler", "write_cache_entries",
                "read_ahead_bytes", "destage", "seek_curve", "seek_curve_cylinders",
                "read_hit_overhead_s", "write_cached_overhead_s", "read_free_blocks",
                "read_ahead_track_end"},
}
_KNOWN_WORKLOAD = {"rw", "rwmixread", "block_size_bytes", "bssplit", "numjobs", "iodepth",
                   "rate_iops", "arrival", "span_bytes", "thinktime_s", "align_bytes"}


def _field_names(obj) -> frozenset[str]:
    return _type_fields(type(obj))


@functools.lru_cache(maxsize=64)
def _type_fields(cls) -> frozenset[str]:
    return frozenset(f.name for f in fields(cls))


def _dist_ok(d) -> bool:
    return isinstance(d, Distribution) and d.code in (0, 1, 2, 3, 4, 5)


def supports(stack: Stack, workload: Workload) -> str | None:
    """None when the fast engine can run this stack and workload, else a short reason."""
    dev = stack.device
    if isinstance(dev, ArrayDevice):
        if not isinstance(dev.group, RaidDevice):
            return (f"device.group.kind {dev.group.kind!r}: an array over this family is not "
                    "in the fast engine")
        for name, d in _device_dists(dev)[-1:]:
            if not _dist_ok(d):
                return f"{name} {d!r} has no numeric sampler"
        reason = _raid_supports(dev.group, in_array=True)
        if reason is not None:
            return reason
        dev = dev.group
    if isinstance(dev, RaidDevice):
        reason = _raid_supports(dev)
        if reason is not None:
            return reason
        dev = dev.member  # (its fields and distributions are checked below)
    kind = getattr(dev, "kind", type(dev).__name__)
    if type(dev) not in _KNOWN_DEVICE:
        return f"device.kind {kind!r} has no fast model"
    extra = _field_names(dev) - _KNOWN_DEVICE[type(dev)]
    if extra:
        return f"device.{sorted(extra)[0]} is not in the fast engine"
    for section, known in _KNOWN.items():
        extra = _field_names(getattr(stack, section)) - known
        if extra:
            return f"{section}.{sorted(extra)[0]} is not in the fast engine"
    extra = _field_names(workload) - _KNOWN_WORKLOAD
    if extra:
        return f"workload.{sorted(extra)[0]} is not in the fast engine"
    for name, d in (("host.overhead", stack.host.overhead),
                    ("pauses.duration", stack.pauses.duration), *_device_dists(dev)):
        if not _dist_ok(d):
            return f"{name} {d!r} has no numeric sampler"
    if isinstance(dev, SsdDevice):
        for name in ("program_s", "program_slow_s"):
            d = getattr(dev, name)
            if d is not None and d.code == EMPIRICAL:
                return f"device.{name} {d!r}: empirical program times are not in the fast engine"
    return None


# RAID members the fast engine runs: every family, in a RAID set or in an array's groups
_RAID_MEMBERS = (GenericDevice, HddDevice, CloudDevice, SsdDevice)


def _raid_supports(dev: RaidDevice, in_array: bool = False) -> str | None:
    """Why the fast engine cannot run this RAID set (None: it can)."""
    if type(dev.member) not in _RAID_MEMBERS:
        where = "an array's RAID groups" if in_array else "RAID"
        return (f"device.member.kind {dev.member.kind!r}: {where} over this family is not in "
                "the fast engine")
    return None


def _raid_counters(dev: RaidDevice, rc, rcf) -> dict:
    """RaidModel's ``counters`` from the kernel's."""
    c = {"requests": int(rc[RC_REQUESTS]), "member_reads": int(rc[RC_MREADS]),
         "member_writes": int(rc[RC_MWRITES]), "cached_writes": int(rc[RC_CACHED]),
         "destages": int(rc[RC_DESTAGES])}
    if dev.failed_member is None:
        return c
    for what, first in (("reads", RC_MR_FG), ("writes", RC_MW_FG)):
        for i, cause in enumerate(("foreground", "degraded", "rebuild")):
            c[f"member_{what}_{cause}"] = int(rc[first + i])
    c.update({"member_ios_lost": int(rc[RC_LOST]), "requests_re_served": int(rc[RC_RESERVED]),
              "rebuilt_bytes": float(rcf[RCF_REBUILT]),
              "rebuild_target_bytes": float(rcf[RCF_TARGET])})
    for i, phase in enumerate(RAID_PHASES):
        c[f"{phase}_requests"] = int(rc[RC_PREQ + i])
        c[f"{phase}_latency_s"] = float(rcf[RCF_PLAT + i])
        c[f"{phase}_degraded_reads"] = int(rc[RC_PDR + i])
    for name, i in (("failed_at_s", RCF_FAILED_AT), ("rebuild_started_s", RCF_RB_STARTED),
                    ("rebuild_ended_s", RCF_RB_ENDED)):
        if not math.isnan(rcf[i]):  # (once it happened)
            c[name] = float(rcf[i])
    return c


def _device_dists(dev) -> list[tuple[str, Distribution]]:
    """The device's distributions: (name, first: all I/Os or reads), then writes if apart."""
    if isinstance(dev, CloudDevice):
        out = [("device.latency", dev.latency)]
        if dev.write_latency is not None:
            out.append(("device.write_latency", dev.write_latency))
        return out
    if isinstance(dev, HddDevice):  # positions, not distributions
        return []
    if isinstance(dev, RaidDevice):  # its members'
        return [(f"device.member{n[len('device'):]}", d) for n, d in _device_dists(dev.member)]
    if isinstance(dev, ArrayDevice):  # its groups' members', then its front end's
        return [(f"device.group{n[len('device'):]}", d) for n, d in _device_dists(dev.group)
                ] + [("device.frontend_s", dev.frontend_s)]
    if isinstance(dev, SsdDevice):  # the fast (LSB) and slow (MSB) page's read, then program
        return [(f"device.{n}", getattr(dev, n)) for n in _SSD_DISTS
                if getattr(dev, n) is not None]
    return [("device.service", dev.service)]


_SSD_DISTS = ("read_s", "read_slow_s", "program_s", "program_slow_s")

_IDLE: dict = {}


def _idle_rng() -> np.random.Generator:
    """A generator for a stream the run never draws from (it keeps the signature fixed)."""
    if "rng" not in _IDLE:
        _IDLE["rng"] = np.random.default_rng(0)
    return _IDLE["rng"]


def _idle_rng_list():
    if "list" not in _IDLE:
        _IDLE["list"] = _rng_list(_idle_rng())
    return _IDLE["list"]


def _prepare(stack: Stack, wl: Workload, ios: int, warmup_ios: int, seed: int,
             replication: int, iocap: int | None, atcap_factor: int, batches: Batches,
             trace: TraceSource | None = None):
    """The kernel's arguments: parameters as arrays, the reference's random streams."""
    dev = under_workload(stack.device, random_writes=wl.random)
    mp = stack.multipath
    link = stack.link
    overhead = stack.host.overhead
    validate = trace is not None and trace.mode == "validate"
    ovh_on = overhead.mean_s > 0 and not validate  # (validate: the recorded gap instead)
    serial = (not wl.open_loop) and wl.iodepth > 1 and ovh_on
    maxb = float(stack.block.max_sectors_bytes)
    sizes = np.array([float(s) for s, _ in wl.sizes])
    probs = np.array([p for _, p in wl.sizes], dtype=float)
    cdf = probs.cumsum()  # as numpy's Generator.choice(p=...) builds it
    cdf /= cdf[-1]
    slots = np.array(
        [max(1, int((wl.span_bytes - s) // wl.align_bytes) + 1) for s in sizes], dtype=np.int64)
    if trace is not None:  # the trace's sizes, not the workload's
        sizes = np.array([trace.max_size_bytes or 1.0])
    maxparts = max(1, max(math.ceil(s / maxb) for s in sizes))
    nslots = wl.numjobs * wl.iodepth
    if iocap is None:
        iocap = nslots if not wl.open_loop else OPEN_LOOP_POOL
    rqcap = iocap * maxparts
    faults = len(mp.failures) > 0
    atcap = rqcap * atcap_factor if faults else rqcap
    # the io stream only matters when an I/O's direction, size or address can change an outcome
    ssd = isinstance(dev, SsdDevice)  # (an SSD's address picks the dies: always drawn)
    hdd = isinstance(dev, HddDevice)  # (an HDD's address is a position: always drawn)
    array = isinstance(dev, ArrayDevice)  # (over RAID groups)
    raid = isinstance(dev, RaidDevice) or array  # (the address picks members: always drawn)
    draw_io = ssd or hdd or raid or not (wl.read_fraction in (0.0, 1.0) and len(sizes) == 1)
    draw_io = draw_io and trace is None  # a trace's requests are read, not drawn
    # the reference's named streams; one that would draw nothing is not even made
    streams = Streams(seed, replication)
    rng_io = streams["io"] if draw_io else _idle_rng()
    dists = _device_dists(dev)
    random_dev = any(d.code != 0 for _, d in dists) or (hdd and dev.rotation == "uniform")
    if array:  # the "service" pair is its groups' members' (the front end's time is apart)
        dists = _device_dists(dev.group)
    # (an array draws its front-end times and read hits from "device"; RAID members their own)
    rng_dev = streams["device"] if (random_dev and not raid) or array else _idle_rng()
    poisson = wl.open_loop and wl.arrival == "poisson"
    rng_arr = streams["arrivals"] if poisson else _idle_rng()
    if ovh_on and overhead.code != 0 and not wl.open_loop:
        job_rngs = _rng_list(streams["host.job0"])
        for j in range(1, wl.numjobs):
            _rng_list_add(job_rngs, streams[f"host.job{j}"])
    else:  # a deterministic overhead draws nothing
        job_rngs = _idle_rng_list()
    ovh_code, ovh_a, ovh_b, ovh_samples = dist_args(overhead)
    rd = dev.group if array else dev
    flash = dev if ssd else rd.member if isinstance(rd, RaidDevice) and isinstance(
        rd.member, SsdDevice) else None  # (an SSD, or a RAID of them, or an array of those)
    if flash is not None:  # the "service" pair is the reads' (fast page, slow page)
        dists = [("", flash.read_s), ("", flash.read_slow_s or flash.read_s)]
    svc_code, svc_a, svc_b, svc_samples = dist_args(dists[0][1] if dists else None)
    svc2_code, svc2_a, svc2_b, svc2_samples = dist_args(dists[-1][1] if dists else None)
    cloud = isinstance(dev, CloudDevice)
    buckets = _cloud_buckets(dev) if cloud else np.zeros((0, 5))
    nr = stack.block.nr_requests
    ip = np.zeros(NIP, np.int64)
    ip[P_NJOBS] = wl.numjobs if not wl.open_loop else 1
    ip[P_IODEPTH] = wl.iodepth if not wl.open_loop else 1
    ip[P_OPEN] = wl.open_loop
    ip[P_POISSON] = wl.arrival == "poisson"
    ip[P_OVH_ON] = ovh_on and not wl.open_loop
    ip[P_SERIAL] = serial
    ip[P_OVH_CODE] = ovh_code
    ip[P_SVC_CODE] = svc_code
    ip[P_UNITS] = dev.queue_depth if hdd else 1 if raid else dev.units  # (an HDD: its tags)
    ip[P_NR_ON] = nr < 10**6
    ip[P_NR] = nr
    ip[P_QD] = stack.hba.queue_depth
    ip[P_NPATHS] = mp.paths
    ip[P_POLICY] = POLICY_CODES[mp.policy]
    ip[P_FAULTS] = faults
    ip[P_LINK_FINITE] = math.isfinite(link.bandwidth_Bps)
    ip[P_IOS] = ios
    ip[P_WARMUP] = warmup_ios
    ip[P_NBATCH] = batches.nbatch
    ip[P_BSIZE] = batches.size
    ip[P_NSIZES] = len(sizes)
    ip[P_RANDOM] = wl.random
    ip[P_DRAW_IO] = draw_io
    ip[P_IOCAP] = iocap
    ip[P_RQCAP] = rqcap
    ip[P_ATCAP] = atcap
    ip[P_NFAIL] = len(mp.failures)
    ip[P_MAXREQ] = -1 if wl.open_loop else nslots * maxparts
    ip[P_DEVKIND] = (DEV_CLOUD if cloud else DEV_SSD if ssd else DEV_HDD if hdd
                     else DEV_ARRAY if array else DEV_RAID if raid else DEV_GENERIC)
    ip[P_SVC2_CODE] = svc2_code
    ip[P_TRACE] = TR_NONE if trace is None else trace.mode_code
    ip[P_PROGRESS] = PROGRESS_EVERY if progress.active() else 0
    ip[P_HOST_CPUS] = stack.host.cpus if ip[P_OVH_ON] else 0
    fp = np.zeros(NFP)
    fp[F_SPEED] = 1.0 if trace is None else trace.speed
    fp[F_THINK] = wl.thinktime_s if not (wl.open_loop or validate) else 0.0
    fp[F_OVH_A] = ovh_a
    fp[F_OVH_B] = ovh_b
    fp[F_SVC_A] = svc_a
    fp[F_SVC_B] = svc_b
    fp[F_MEDIA] = getattr(dev, "media_rate_Bps", math.inf)
    fp[F_CONTENTION] = dev.contention if isinstance(dev, GenericDevice) else 0.0
    pz = stack.pauses  # the device's pauses: their numbers and their own stream
    ip[P_PAUSES] = 1 if pz.on else 0
    pz_code, fp[F_PZ_A], fp[F_PZ_B], pz_samples = dist_args(pz.duration)
    ip[P_PZ_CODE] = pz_code
    fp[F_PZ_RATE] = pz.rate_hz
    rng_pause = streams["pauses"] if pz.on else _idle_rng()
    fp[F_MAXB] = maxb
    fp[F_LAT] = link.latency_s
    fp[F_BW] = link.bandwidth_Bps
    fp[F_FO] = mp.failover_timeout_s
    fp[F_GAP] = 1.0 / wl.rate_iops if wl.open_loop else 0.0
    fp[F_RF] = wl.read_fraction
    fp[F_SPAN] = wl.span_bytes
    fp[F_ALIGN] = wl.align_bytes
    fp[F_SVC2_A] = svc2_a
    fp[F_SVC2_B] = svc2_b
    if cloud:
        _cloud_params(dev, fp)
    if ssd:  # die processes at once: one per die an attempt's pages touch at most
        _ssd_params(dev, ip, fp, sizes, maxb, owners=atcap, instances=1)
    fail_path = np.array([ev.path for ev in mp.failures] or [0], dtype=np.int64)
    fail_at = np.array([ev.fail_at_s for ev in mp.failures] or [0.0])
    restore_at = np.array(
        [np.nan if ev.restore_at_s is None else ev.restore_at_s for ev in mp.failures] or [0.0])
    if trace is None:
        zf, zb = np.zeros(1), np.zeros(1, np.bool_)
        tr = (zf, zf, zf, zb, zf, zf, zf, np.zeros(1, np.int64))
    else:
        tr = (trace.arrival_s, trace.offset_bytes, trace.size_bytes, trace.is_read,
              trace.gap_before_s, trace.done_latency_s, trace.done_issue_s, trace.done_idx)
    hdd_args, raid_args, buckets, fe_samples = _disk_args(dev, wl, streams, ip, fp, sizes, maxb,
                                                          trace, buckets)
    return (ip, fp, sizes, cdf, slots, svc_samples, svc2_samples, ovh_samples, fe_samples,
            fail_path, fail_at, restore_at, buckets, rng_io, rng_dev, rng_arr, job_rngs, *tr,
            *hdd_args, *raid_args, rng_pause, pz_samples)


def _disk_args(dev, wl: Workload, streams: Streams, ip, fp, sizes, maxb: float,
               trace: TraceSource | None, buckets):
    """The disk families' kernel arguments: the HDD's (or a RAID's member disks'), RAID's and
    the array's (empty placeholders for other devices); a RAID of cloud volumes' buckets (one
    per member and spare, replacing ``buckets``); the array's front-end time samples."""
    array = isinstance(dev, ArrayDevice)
    hdd_args = fh.hdd_params(dev) if isinstance(dev, HddDevice) else (
        np.zeros(fh.NH), np.zeros(1), np.zeros(1))
    raid_args = (np.zeros(NRP), np.zeros((2, NRC), np.int64), np.zeros((1, NRCF)),
                 _idle_rng_list())
    if isinstance(dev, RaidDevice) or array:  # (or an array of RAID sets)
        rd = dev.group if array else dev
        raid_args, hdd_args = _raid_args(dev, wl, streams, ip, fp, sizes, maxb, trace)
        if isinstance(rd.member, CloudDevice):  # each member, and the spare, its own buckets
            sets = dev.groups if array else 1
            buckets = np.tile(_cloud_buckets(rd.member), (sets * (rd.members + 1), 1))
    fe_samples = np.zeros(1)
    if array:  # the array's front-end time
        fe_code, fe_a, fe_b, fe_samples = dist_args(dev.frontend_s)
        raid_args[0][[RP_FE_CODE, RP_FE_A, RP_FE_B]] = (fe_code, fe_a, fe_b)
    return hdd_args, raid_args, buckets, fe_samples


#: where the RAID counters (rc, then rcf) sit in _prepare's arguments, counted from the end:
#: rc, rcf, mrngs, rng_pause, pz_samples
_RC_ARG = -5


def _ssd_params(dev: SsdDevice, ip, fp, sizes, maxb: float, owners: int, instances: int) -> None:
    """The SSD's parameters into the kernel's (SsdModel's numbers), with room for the die
    processes of ``owners`` requests at once (one per die their pages touch at most) and
    every die of ``instances`` SSDs programming in the background."""
    ip[P_SSD_C] = dev.channels
    ip[P_SSD_D] = dev.dies_per_channel
    ip[P_SSD_PLANES] = dev.planes_per_die
    ip[P_SSD_SLOW] = dev.read_slow_s is not None
    ip[P_SSD_LINK] = math.isfinite(dev.host_interface_Bps)
    max_pages = max(math.ceil(min(s, maxb) / dev.page_bytes) + 1 for s in sizes)
    ip[P_DPCAP] = owners * min(max_pages, dev.dies) + instances * dev.dies
    fp[F_SSD_WBUF] = dev.write_buffer_bytes
    fp[F_SSD_UNIT] = dev.page_bytes * dev.planes_per_die
    fp[F_SSD_CHRATE] = dev.channel_rate_Bps
    ip[P_SSD_RBUFP] = dev.read_buffer_pages
    prog_slow = dev.program_slow_s or dev.program_s
    ip[P_PROG_CODE] = dev.program_s.code
    ip[P_PROG2_CODE] = prog_slow.code
    ip[P_PROG_SLOW] = dev.program_slow_s is not None
    fp[F_PROG_A], fp[F_PROG_B] = (float(v) for v in dev.program_s.params)
    fp[F_PROG2_A], fp[F_PROG2_B] = (float(v) for v in prog_slow.params)
    fp[F_SSD_GC] = dev.gc_extra_s() if dev.gc else 0.0  # as SsdModel.gc_extra
    fp[F_SSD_PAGE] = dev.page_bytes
    fp[F_SSD_XFER] = dev.page_bytes / dev.channel_rate_Bps  # as SsdModel.xfer_page
    fp[F_SSD_OVH] = dev.controller_overhead_s
    fp[F_SSD_HOST_BW] = dev.host_interface_Bps


def _cloud_buckets(dev: CloudDevice) -> np.ndarray:
    """CloudModel's buckets, a row each: rate, capacity, cost code, tokens (burst credits start
    full, rate caps empty), the time they were last taken from."""
    plan = bucket_plan(dev)
    return np.array([[rate, cap, CLOUD_COSTS[what],
                      cap if name == "iops" and dev.burst_iops > 0 else 0.0, 0.0]
                     for name, rate, cap, what in plan], dtype=float).reshape(len(plan), 5)


def _cloud_params(dev: CloudDevice, fp) -> None:
    """What CloudModel._cost reads (the kernel's cloud_cost), into the float parameters."""
    fp[F_IO_UNIT] = dev.io_unit_bytes
    fp[F_R_IOPS] = dev.read_iops_limit
    fp[F_W_IOPS] = dev.write_iops_limit
    fp[F_R_BW] = dev.read_bandwidth_limit_Bps
    fp[F_W_BW] = dev.write_bandwidth_limit_Bps


def _raid_args(dev, wl: Workload, streams: Streams, ip, fp, sizes, maxb: float, trace):
    """The kernel's RAID arguments (parameters, counters, the members' streams) and its
    members' disk arguments, for a RAID set or an array of them (``dev``); the members'
    service distribution is the kernel's "service", an array's front end its second."""
    array = dev if isinstance(dev, ArrayDevice) else None
    atcap = int(ip[P_ATCAP])
    rd = dev.group if array else dev
    groups = array.groups if array else 1
    member = rd.member
    hdd = isinstance(member, HddDevice)
    # writes still to destage: each holds its bytes of a cache until it is down
    parts = [p for s in sizes for p in (min(s, maxb), s - (math.ceil(s / maxb) - 1) * maxb)]
    smallest = 512.0 if trace is not None else max(1.0, min(parts))
    cached = int(min(rd.write_cache_bytes // smallest, 1 << 16))
    rp = np.zeros(NRP)
    rp[RP_LEVEL] = raid_level_code(rd.level)
    rp[RP_N] = rd.members
    rp[RP_SU] = rd.stripe_unit_bytes
    rp[RP_OVH] = rd.controller_overhead_s
    rp[RP_CACHE] = rd.write_cache_bytes
    rp[RP_DLIMIT] = rd.destage_limit
    rp[RP_CCOUNT] = rd.coalesce_count
    rp[RP_CTIMEOUT] = rd.coalesce_timeout_s
    cloud = isinstance(member, CloudDevice)
    ssd = isinstance(member, SsdDevice)
    rp[RP_MKIND] = DEV_HDD if hdd else DEV_CLOUD if cloud else DEV_SSD if ssd else DEV_GENERIC
    rp[RP_MUNITS] = member.queue_depth if hdd else 1 if ssd else member.units
    rp[RP_GROUPS] = groups
    rp[RP_POLICY] = rd.read_policy_code
    at_groups = atcap  # requests at the sets: attempts, and the array's destages in service
    if array:
        rp[RP_AOCAP] = min(array.write_cache_bytes // smallest, 1 << 20) + 1
        rp[RP_A_UNITS] = array.frontend_units
        rp[RP_A_HIT] = array.read_hit_ratio
        rp[RP_A_CACHE] = array.write_cache_bytes
        rp[RP_A_MIRROR] = array.mirror_s
        rp[RP_A_DLIMIT] = array.destage_limit
        rp[RP_A_RATE] = array.destage_rate_Bps
        rp[RP_A_EXTENT] = array.extent_bytes
        at_groups += min(array.destage_limit, rp[RP_AOCAP])
    rp[RP_ROCAP] = at_groups + groups * (cached + 1) + 1  # (and a rebuild each)
    rp[RP_PROWS] = raid_plan_rows(rd.members, rd.stripe_unit_bytes, min(max(sizes), maxb))
    if not (hdd or ssd):
        fp[F_MEDIA] = member.media_rate_Bps
    random = (member.rotation == "uniform" if hdd
              else any(d.code != 0 for _, d in _device_dists(member)))
    if cloud:
        _cloud_params(member, fp)
        rp[RP_MNBK] = len(bucket_plan(member))
    if ssd:  # each member I/O's die processes, each member's (and spare's) background ones
        micap = int(rp[RP_ROCAP] * rp[RP_PROWS])
        _ssd_params(member, ip, fp, sizes, maxb, owners=micap,
                    instances=groups * (rd.members + 1))
    f = rd.failed_member
    rp[RP_FAILED] = -1 if f is None else f
    rp[RP_LIVE] = f is not None and rd.fail_at_s > 0
    rp[RP_FAIL_AT] = rd.fail_at_s
    rebuild = f is not None and rd.rebuild_start_s is not None
    rp[RP_REBUILD] = rebuild
    if rebuild:
        rp[RP_RB_START] = rd.rebuild_start_s
        rp[RP_RB_RATE] = rd.rebuild_rate_Bps
        rp[RP_RB_STEP] = rd.rebuild_io_bytes or rd.stripe_unit_bytes
        rp[RP_RB_TARGET] = rd.rebuild_target_bytes
    # RaidModel's _Prefixed streams ("device.member{i}", an array's "device.group{g}.member{i}")
    # and the spare's, set by set
    names = []
    for g in range(groups):
        prefix = f"device.group{g}" if array else "device"
        names += [f"{prefix}.member{i}" for i in range(rd.members)]
        names.append(f"{prefix}.spare{f}" if rebuild else "")
    mrngs = _rng_list(streams[names[0]] if random else _idle_rng())
    for name in names[1:]:
        _rng_list_add(mrngs, streams[name] if random and name else _idle_rng())
    hdd_args = fh.hdd_params(member) if hdd else (np.zeros(fh.NH), np.zeros(1), np.zeros(1))
    rcf = np.zeros((groups, NRCF + rd.members))
    rcf[:, [RCF_FAILED_AT, RCF_RB_STARTED, RCF_RB_ENDED]] = np.nan  # (not yet)
    return (rp, np.zeros((groups + 1, NRC + rd.members), np.int64), rcf, mrngs), hdd_args


@dataclass
class FastSimulation:
    """A finished fast run, shaped like ``simpy_engine.Simulation`` where results read it."""

    stack: Stack
    wl: Workload
    ios: int
    warmup: int
    seed: int
    rec: SimpleNamespace
    t_end: float
    issued: int
    completed: int
    duplicates: int
    failovers: int
    events_s: float = math.nan  # wall time of the compiled loop
    device: object = None  # like the reference's device model: its ``counters`` if any


def _loghist(counts, n, f) -> LogHist:
    h = LogHist()
    h.counts[:] = counts
    h.n = int(n)
    h.total = float(f[0])
    h.min = float(f[1])
    h.max = float(f[2])
    return h


def _timeavg(lv_row, level, hist=None, hist_len=64) -> TimeAvg:
    ta = TimeAvg(track_hist=hist is not None)
    ta.t_last, ta.t0, ta.area, ta.busy = (float(v) for v in lv_row)
    ta.level = int(level)
    if hist is not None:
        ta.hist = np.zeros(hist_len)
        n = min(hist_len, len(hist))
        ta.hist[:n] = hist[:n]
    return ta


def run_fast_sim(stack: Stack, workload: Workload, *, ios: int, warmup_ios: int, seed: int,
                 replication: int = 0, trace: TraceSource | None = None) -> FastSimulation:
    """Run the compiled engine; the result has ``rec`` like the reference's Recorder. With
    ``trace`` the I/Os are the trace's (:mod:`iosim.engine.trace_source`)."""
    reason = supports(stack, workload)
    if reason is not None:
        raise ValueError(f"the fast engine cannot run this stack: {reason}")
    iocap = None
    atcap_factor = 2
    batches = batches_for(ios)  # the reference's batch layout; the kernel fills its arrays
    for _ in range(40):
        args = _prepare(stack, workload, ios, warmup_ios, seed, replication, iocap, atcap_factor,
                        batches, trace)
        kernel = kernel_for(stack.device)
        # a first run without a compiled kernel says so first
        announce_compile(kernel, AT_SET_UP if kernel is not _kernel_all else
                         "a RAID of SSDs, or an array of such groups, has a variant of "
                         "its own, which set-up leaves out")
        if trace is not None:
            trace.rewind()  # (a run again with larger pools reads the trace again)
        t0 = time.perf_counter()
        with reading(trace):
            out = kernel(*args)
        elapsed = time.perf_counter() - t0
        (tot, cnt, out_f, hist, hn, hf, lv, lvl, qdh, b_sums, b_counts, b_tend, b_hist) = out
        if tot[T_STATUS] == OK:
            break
        if tot[T_STATUS] == STALLED:
            raise RuntimeError("fast engine: no event left before the run finished (stalled)")
        if tot[T_STATUS] == BEYOND:  # HddModel._add's refusal, word for word
            disk = stack.device
            disk = disk.group if isinstance(disk, ArrayDevice) else disk
            disk = disk.member if isinstance(disk, RaidDevice) else disk
            cap = disk.capacity_bytes
            raise SpecError(
                f"an I/O at offset {out_f[6]:.0f} + {out_f[7]:.0f} bytes lies beyond "
                f"device.capacity_bytes = {cap:.0f}: lower workload.span_bytes"
            )
        # a pool or queue was too small for this run: grow and run again (same seed)
        ip = args[0]
        iocap = int(ip[P_IOCAP]) * 2
        if workload.open_loop and iocap > MAX_OPEN_BACKLOG:
            # arrivals outpace service: refuse rather than grow the pools without bound
            what = (f"the trace at speed {trace.speed:g}" if trace is not None
                    else f"workload.rate_iops = {workload.rate_iops:g}")
            raise UnstableError(
                f"{what} is more than the stack serves: "
                f"over {MAX_OPEN_BACKLOG:,} I/Os were in flight at once. Lower the rate or "
                "add capacity."
            )
        atcap_factor *= 2
    else:  # pragma: no cover - 2**40 I/Os in flight
        raise RuntimeError("fast engine: queues keep overflowing")
    units = stack.device.units
    batches.sums[:] = b_sums
    batches.counts[:] = b_counts
    batches.t_end[:] = b_tend
    batches.hists[:] = b_hist
    batches.t_start = float(out_f[0])
    batches.k = int(cnt[N_BATCH_K])
    rec = SimpleNamespace(
        units=units,
        lat=_loghist(hist[H_LAT], hn[H_LAT], hf[H_LAT]),
        lat_read=_loghist(hist[H_READ], hn[H_READ], hf[H_READ]),
        lat_write=_loghist(hist[H_WRITE], hn[H_WRITE], hf[H_WRITE]),
        block_lat=_loghist(hist[H_BLOCK], hn[H_BLOCK], hf[H_BLOCK]),
        device_lat=_loghist(hist[H_DEVICE], hn[H_DEVICE], hf[H_DEVICE]),
        host_out=_timeavg(lv[L_HOST], lvl[L_HOST], qdh, int(lvl[5])),
        block_out=_timeavg(lv[L_BLOCK], lvl[L_BLOCK]),
        below_out=_timeavg(lv[L_BELOW], lvl[L_BELOW]),
        device_out=_timeavg(lv[L_DEVICE], lvl[L_DEVICE]),
        busy_units=_timeavg(lv[L_BUSY], lvl[L_BUSY]),
        batches=batches,
        measuring=False,
        t_start=float(out_f[0]),
        n_read=int(cnt[N_READ]),
        n_write=int(cnt[N_WRITE]),
        bytes_done=float(out_f[3]),
        block_done=int(cnt[N_BLOCK]),
        block_bytes=float(out_f[4]),
        device_done=int(cnt[N_DEVICE]),
    )
    rec.levels = (rec.host_out, rec.block_out, rec.below_out, rec.device_out, rec.busy_units)
    device = None
    if isinstance(stack.device, CloudDevice):  # CloudModel's counters
        device = SimpleNamespace(counters={"throttled": int(tot[T_THROTTLED]),
                                           "throttle_s": float(out_f[5])})
    elif isinstance(stack.device, HddDevice):  # HddModel's counters
        device = SimpleNamespace(counters={"media_reads": int(tot[T_MEDIA_READS]),
                                           "media_writes": int(tot[T_MEDIA_WRITES]),
                                           "cache_writes": int(tot[T_CACHE_WRITES]),
                                           "cache_reads": int(tot[T_CACHE_READS])})
    elif isinstance(stack.device, RaidDevice):  # RaidModel's counters
        rc, rcf = args[_RC_ARG:_RC_ARG + 2]
        device = SimpleNamespace(counters=_raid_counters(stack.device, rc[0], rcf[0]))
    elif isinstance(stack.device, ArrayDevice):  # ArrayModel's counters
        rc = args[_RC_ARG]
        device = SimpleNamespace(counters={name: int(rc[-1, i])
                                           for i, name in enumerate(ARRAY_COUNTERS)})
    elif isinstance(stack.device, SsdDevice):  # SsdModel's counters
        device = SimpleNamespace(counters={"page_reads": int(tot[T_PAGE_READS]),
                                           "page_programs": int(tot[T_PAGE_PROGS]),
                                           "buffered_writes": int(tot[T_BUFFERED])})
    return FastSimulation(
        stack=stack, wl=workload, ios=ios, warmup=warmup_ios, seed=seed, rec=rec,
        t_end=float(out_f[1]), issued=int(tot[T_ISSUED]), completed=int(tot[T_COMPLETED]),
        duplicates=0, failovers=int(tot[T_FAILOVERS]), events_s=elapsed, device=device)


def run_fast(stack: Stack, workload: Workload, *, ios: int, warmup_ios: int, seed: int,
             replication: int = 0, trace: TraceSource | None = None) -> Results:
    """Run the compiled engine and return its :class:`Results` (engine, seed and params are
    the caller's to set, as for the reference)."""
    return results_of(run_fast_sim(stack, workload, ios=ios, warmup_ios=warmup_ios, seed=seed,
                                   replication=replication, trace=trace))
