"""The fast engine's numbers: event kinds, parameter and state slots, counters.

An event code is ``(argument << KB) | kind``: the kind in the low 8 bits (256 kinds; which
family owns which block is said below), the argument (an attempt, a process, a disk) above.
The kernel (:mod:`iosim.engine.fast`) and any module that compiles code for it share these;
numba compiles them in as constants.
"""

from __future__ import annotations

# -- event kinds (low 8 bits of an event code; the argument is in the high bits) ---------------
# 0-31: the host (job slots, arrivals, new_io, the block request's start and end: fast_host_
# steps); 32-63: the device's boundary (arrival, the generic device's and the cloud's unit, the
# completion: fast_device_steps); 64-95: the HDD; 96-127: RAID (124: a cloud member's tokens);
# 128-143: the array; 144-175: the SSD; 176-207: the path below the block layer (multipath,
# link, failover); 208-255 free. The kernel sends each block to its steps by range (K_HOST_LAST,
# K_DEV_LAST, K_HDD_FIRST..K_HDD_LAST and so on): a new family takes a free block of its own.

KB = 8
KMASK = 255
K_HOST_LAST = 31  # the host's block: 0..K_HOST_LAST
K_JOB_TOP = 0  # a job slot at the top of its loop (process start or io.done)
K_JOB_CPU = 1  # the job's CPU granted: spend the overhead
K_JOB_OVH = 2  # overhead spent
K_JOB_THINK = 3  # think time spent
K_IO_DONE = 4  # io.done processed: the job slot resumes
K_BR_START = 5  # a block request process starts
K_JOB_HOST = 6  # one of the host's shared CPUs (host.cpus) granted: spend the overhead
K_ARR_START = 7  # the open-loop arrival process starts
K_ARR_NEXT = 8  # the next arrival is due
K_ISSUE = 9  # inline: new_io, then submit
K_BR_FINISH = 10  # inline: a block request is done (its I/O completes with its last part)
K_THINK_ISSUE = 11  # inline: think time, then issue
K_FINISH = 31  # the measured I/Os are done: the run stops (the kernel's own)
K_DEV_FIRST, K_DEV_LAST = 32, 63  # the device boundary's block
K_DEV_PAUSED = 32  # the pause that held a device completion is over (stack.pauses)
K_DEV_GRANT = 33  # device unit granted
K_DEV_DONE = 34  # device service done
K_RELEASE = 35  # a resource's Release event processed: grant the head waiter
K_DEV_GO = 36  # cloud: throttle wait over (a timed event)
K_DEV_ARRIVE = 37  # inline: an attempt reaches the device: the family's serve
K_DEV_FINISHED = 38  # inline: the device is done with an attempt
K_DEV_QUEUE = 39  # inline: (generic, cloud past the token buckets) FIFO for a unit
# SSD (SsdModel): the serve process, its die processes, the host link
K_SSD_FIRST, K_SSD_LAST = 144, 175  # the SSD's block: the serve process, then die processes
K_SSD_SERVE_LAST = 151  # the serve process's steps: K_SSD_FIRST .. here (x: the request)
K_SSD_OVH = 144  # controller overhead spent: fork the die processes
K_SSD_FORK = 145  # inline: the request's pages; a read forks, a write crosses the host link
K_SSD_IGRANT = 146  # host link (host -> device) granted
K_SSD_IXFER = 147  # host link transfer done
K_SSD_WBUF = 148  # inline: room in the write buffer, or programs the request waits for
K_SSD_BUF = 149  # write buffer room taken (at once or when freed): dirty data, done
K_SSD_SPAWN = 150  # inline: one process per die the request's pages live on, in page order
K_SSD_ALL = 151  # AllOf of the die processes processed: the request is done
K_SSD_DSTART = 152  # a die process starts: request its die (x: the die process)
K_SSD_DGRANT = 153  # die granted: array time (tR)
K_SSD_DREAD = 154  # array time done: room in the read buffer, then request the channel
K_SSD_RSLOT = 155  # a read die process waited for room in the read buffer: now the channel
K_SSD_CHAN = 156  # inline: the channel (a read after tR, a program first)
K_SSD_CGRANT = 157  # channel granted: transfer the pages
K_SSD_CXFER = 158  # transfer done: release channel and die (a read then crosses the link)
K_SSD_AFTERCH = 159  # inline: after the channel: a read is done, a program takes tPROG
K_SSD_PROG = 160  # program time (with GC's extra die time) spent
K_SSD_DEND = 161  # inline: the die process's end
K_SSD_PEND = 162  # a die process's end processed (AllOf counts it)
K_SSD_LGRANT = 163  # a read die process: host link (device -> host) granted
K_SSD_LXFER = 164  # a read die process: host link transfer done, read buffer room freed
# the path below the block layer (Multipath, Link; fast_path_steps): a block request's host
# queue and path slot (x: the request), its attempt across the link (x: the attempt), fault
# mode's attempt processes and conditions, the scheduled path failures (x: the failure)
K_P_FIRST, K_P_LAST = 176, 207  # the path's block
K_BR_NR = 176  # nr_requests slot granted: request a path
K_BR_PATH = 177  # a path granted by multipath
K_ATT_START = 178  # a path attempt process starts (fault mode)
K_LD_GRANT = 179  # link down granted: transfer
K_LD_XFER = 180  # link down transfer done
K_LD_LAT = 181  # link down latency done
K_LU_GRANT = 182  # link up granted: transfer
K_LU_XFER = 183  # link up transfer done
K_LU_LAT = 184  # link up latency done
K_ATT_END = 185  # the attempt process's end processed (fault mode)
K_COND = 186  # the attempt | failed condition processed (fault mode)
K_FAILOVER = 187  # failover timeout done: retry at the front of the host queue
K_PATH_FAILED = 188  # a path's "failed" event processed
K_PE_START = 189  # a scheduled path failure's process starts
K_PE_FAIL = 190  # the path fails
K_PE_RESTORE = 191  # the path is restored
K_ACQUIRE = 192  # inline: request a path (back of the queue)
K_ATT_RUN = 193  # inline: the path attempt's body from the top
K_LD_LATSTEP = 194  # inline: the link's latency down
K_LU_LATSTEP = 195  # inline: the link's latency up
K_ATT_FINISH = 196  # inline: the attempt is done: its path slot
K_ACQ = 197  # inline: enter the host queue (front or back)
K_DISPATCH = 198  # inline: Multipath._dispatch, then on to k_after
K_ATT_DONE = 199  # inline: the attempt's end
# HDD (HddModel): the serve process (x: the attempt) and the actuator process (x: 0)
K_HDD_FIRST, K_HDD_LAST = 64, 95  # the HDD's block
K_HDD_TAG = 64  # an NCQ tag granted: the command overhead
K_HDD_OVH = 65  # command overhead spent
K_HDD_RAWAIT = 66  # waited for the read-ahead stream to reach the data
K_HDD_HITOVH = 67  # a buffer hit's controller overhead spent: across the interface
K_HDD_HITX = 68  # a buffer hit's interface transfer done
K_HDD_WGRANT = 69  # a write-cache entry taken (at once or granted by a destage)
K_HDD_WOVH = 70  # the cached write's controller overhead spent: across the interface
K_HDD_WX = 71  # the cached write's interface transfer done: dirty entry, acknowledged
K_HDD_MDONE = 72  # the media operation's done event processed: the interface lag
K_HDD_END = 73  # serve ends: release the tag
K_HDD_WAKE = 74  # the actuator's wake event processed
K_HDD_SERVED = 75  # the actuator's media operation done
K_HDD_CMD = 76  # inline: past the overhead: buffer, cache or media
K_HDD_HIT = 77  # inline: answered from the buffer
K_HDD_MEDIA = 78  # inline: a media operation for the actuator; wait for it
K_HDD_LOOP = 79  # inline: the actuator's loop top: pick the next media operation
# 96-127: RAID (RaidModel): the controller and its ops (x: the attempt, an op or an epoch) and
# the member I/Os (x: the member I/O; a member disk's steps are the K_HDD_* ones)
K_R_FIRST, K_R_LAST = 96, 127  # RAID's block
K_R_OVH = 96  # controller overhead spent
K_R_CMD = 97  # inline: the controller cache, or the members now
K_R_CACHED = 98  # cache room taken: acknowledged, a destage process takes the data down
K_R_EXEC = 99  # inline: RaidModel._execute of an op: the plan, then its reads
K_R_ALL = 100  # the AllOf of a phase's member processes processed
# (101 unused)
K_R_XEND = 102  # inline: the op is done (a request reports, a destage frees its slot and room)
K_R_REPORT = 103  # inline: Coalescer.report
K_R_REPORTED = 104  # the report event processed: the request leaves the device
K_R_DSTART = 105  # a destage process starts: a destage slot
K_R_DGRANT = 106  # destage slot granted
K_R_TSTART = 107  # a coalescing timer process starts
K_R_TIMER = 108  # the coalescing timer's timeout
K_M_START = 109  # a member's serve process starts: its unit (or a disk's NCQ tag)
K_M_GRANT = 110  # a generic member's unit granted
K_M_DONE = 111  # a generic member's service done
K_M_PEND = 112  # a member process's end processed (the op's AllOf counts it)
K_M_TOKENS = 124  # a cloud member's token-bucket wait over: its unit
K_R_DOOMED = 113  # an op's AllOf of its I/Os at the failing member processed
K_R_OR = 114  # its `doomed | failed` condition processed: the op resumes
K_R_FSTART = 115  # RaidModel._fail starts
K_R_FAIL = 116  # the member fails
K_R_FAILEV = 117  # the failed event processed: its waiters
K_R_BSTART = 118  # RaidModel._rebuild starts
K_R_BWAIT = 119  # the rebuild's start: the spare takes the failed member's place
K_R_BSTEP = 120  # inline: the rebuild's loop top
K_R_BPACE = 121  # the rebuild's pacing wait done
K_R_PHASE = 122  # inline: a phase of an op's member I/Os is over
K_R_SPAWN = 123  # inline: a phase starts: its member processes (ro_sw, ro_scnt say which)
# 128-137: the array (ArrayModel) over RAID groups (x: the attempt, or an array destage)
K_A_FIRST, K_A_LAST = 128, 143  # the array's block
K_A_CORE = 128  # a front-end core granted: its time
K_A_FRONT = 129  # front-end time spent: a read hit, the back end, or the cache
K_A_CACHED = 130  # room in the array's cache taken: mirror it
K_A_MIRROR = 131  # mirrored: acknowledged; a destage process takes the data down
K_A_DSTART = 132  # an array destage process starts: a destage slot
K_A_DSLOT = 133  # destage slot granted: the pace, or the back end
K_A_PGRANT = 134  # the destage pace granted: its time
K_A_PACED = 135  # paced
K_A_BACKEND = 136  # inline: ArrayModel._backend: the group's RaidModel.serve, inline
K_A_BDONE = 137  # an array destage's back-end request done: its slot, then its cache room
# what a die process is: a read (joined), a program (joined), a die's background programs
SSD_READ, SSD_WRITE, SSD_BUFFERED = 0, 1, 2

# device families
DEV_GENERIC, DEV_CLOUD, DEV_SSD, DEV_HDD = 0, 1, 2, 3
DEV_RAID = 4
DEV_ARRAY = 5  # (over RAID groups)
# ctl slots (int64 scalars shared with helpers)
(C_HN, C_SEQ, C_UH, C_UC, C_FH, C_FC, C_WH, C_WC, C_RR, C_OVF, C_IH, C_IC) = range(12)
# (fault mode) free path attempts, and the path-failure waiters' next registration number
C_ATFREE, C_REGSEQ = 12, 13
# FifoSpace instances (SsdModel's write and read buffers)
SP_WRITE, SP_READ = 0, 1
SP_RAID = 2  # the RAID controller's write-back cache (bytes)

# levels (TimeAvg) in recorder order
L_HOST, L_BLOCK, L_BELOW, L_DEVICE, L_BUSY = range(5)
# histograms in recorder order
H_LAT, H_READ, H_WRITE, H_BLOCK, H_DEVICE = range(5)
# status codes (BEYOND: an HDD I/O past the capacity, which the reference refuses)
OK, OVERFLOW, STALLED, BEYOND = 0, 1, 2, 3
# fault-mode condition states
COND_NONE, COND_PENDING, COND_TRIGGERED = 0, 1, 2
# integer parameters
(P_NJOBS, P_IODEPTH, P_OPEN, P_POISSON, P_OVH_ON, P_SERIAL, P_OVH_CODE, P_SVC_CODE, P_UNITS,
 P_NR_ON, P_NR, P_QD, P_NPATHS, P_POLICY, P_FAULTS, P_LINK_FINITE, P_IOS, P_WARMUP, P_NBATCH,
 P_BSIZE, P_NSIZES, P_RANDOM, P_DRAW_IO, P_IOCAP, P_RQCAP, P_ATCAP, P_NFAIL, P_MAXREQ,
 P_DEVKIND, P_SVC2_CODE, P_SSD_C, P_SSD_D, P_SSD_PLANES, P_SSD_SLOW, P_SSD_LINK,
 P_DPCAP, P_PROG_CODE, P_PROG2_CODE, P_PROG_SLOW, P_SSD_RBUFP, P_TRACE, P_PROGRESS) = range(42)
NIP = 45
P_HOST_CPUS = 42  # host.cpus: CPUs shared by all jobs' overhead periods (0: no shared limit)
P_PAUSES = 43  # stack.pauses on (1) or off (0)
P_PZ_CODE = 44  # the pauses' duration distribution: its code
# float parameters
(F_THINK, F_OVH_A, F_OVH_B, F_SVC_A, F_SVC_B, F_MEDIA, F_MAXB, F_LAT, F_BW, F_FO, F_GAP, F_RF,
 F_SPAN, F_ALIGN, F_SVC2_A, F_SVC2_B, F_IO_UNIT, F_R_IOPS, F_W_IOPS, F_R_BW, F_W_BW,
 F_SSD_PAGE, F_SSD_XFER, F_SSD_OVH, F_SSD_HOST_BW, F_SSD_GC, F_PROG_A, F_PROG_B, F_PROG2_A,
 F_PROG2_B, F_SSD_WBUF, F_SSD_UNIT, F_SSD_CHRATE, F_SPEED, F_CONTENTION, F_PZ_RATE, F_PZ_A,
 F_PZ_B) = range(38)
NFP = 38
# RAID parameters (float array rp), counters and state (int array rc, float array rcf; the kernel
# fills them)
(RP_LEVEL, RP_N, RP_SU, RP_OVH, RP_CACHE, RP_DLIMIT, RP_CCOUNT, RP_CTIMEOUT, RP_MKIND,
 RP_MUNITS, RP_ROCAP, RP_PROWS, RP_FAILED, RP_LIVE, RP_FAIL_AT, RP_REBUILD, RP_RB_START,
 RP_RB_RATE, RP_RB_STEP, RP_RB_TARGET) = range(20)
# the array over RAID groups: groups (1 for a RAID alone), its destage processes at once,
# front-end cores, read-hit ratio, cache, mirror time, destage limit and rate, extent
(RP_GROUPS, RP_AOCAP, RP_A_UNITS, RP_A_HIT, RP_A_CACHE, RP_A_MIRROR, RP_A_DLIMIT, RP_A_RATE,
 RP_A_EXTENT) = range(20, 29)
RP_POLICY = 29  # the mirror-read policy (devices.raid POLICY_*)
RP_MNBK = 30  # a cloud member's token buckets (its rows of the kernel's buckets, member by member)
# the array's front-end time: its distribution's code and parameters (dists.dist_args; its
# samples, when empirical, are the kernel's fe_samples)
RP_FE_CODE, RP_FE_A, RP_FE_B = 31, 32, 33
NRP = 34
# the array's counters: the row after the groups' in rc
AC_HITS, AC_MISSES, AC_CACHED, AC_DESTAGES, AC_BACKEND = range(5)
ARRAY_COUNTERS = ("read_hits", "read_misses", "cached_writes", "destages", "backend_writes")
(RC_REQUESTS, RC_MREADS, RC_MWRITES, RC_CACHED, RC_DESTAGES, RC_TURN, RC_EPOCH,
 RC_PENDING, RC_MR_FG, RC_MR_DG, RC_MR_RB, RC_MW_FG, RC_MW_DG, RC_MW_RB, RC_LOST,
 RC_RESERVED, RC_PHASE) = range(17)
RC_PREQ = 17  # 4 slots: requests per phase
RC_PDR = 21  # 4 slots: degraded reads per phase
(RC_FAILED_NOW, RC_SPARE, RC_FAILTRIG, RC_REGSEQ, RC_RB_WAITING, RC_RB_TURN) = range(25, 31)
NRC = 31
RC_PEND0 = NRC  # rc's columns from here: member I/Os pending at each member (read balancing)
RCF_REBUILT, RCF_TARGET = 0, 1
RCF_PLAT = 2  # 4 slots: summed latency per phase
(RCF_FAILED_AT, RCF_RB_STARTED, RCF_RB_ENDED, RCF_REBUILT_TO, RCF_RB_POS,
 RCF_RB_T0) = range(6, 12)
NRCF = 12
RCF_HEAD0 = NRCF  # rcf's columns from here: where each member's last member I/O ended
# phases (RAID_PHASES), what an op is for (an attempt's index, else these), its steps, and
# how it waits for its member processes (an AllOf; the `doomed | failed` Or; then the rest)
PH_BEFORE, PH_DEGRADED, PH_REBUILDING, PH_AFTER = range(4)
RO_DESTAGE, RO_REBUILD = -1, -2
ST_READS, ST_MISSING, ST_WRITES, ST_RB_READS, ST_RB_WRITE = range(5)
MD_ALL, MD_OR, MD_ORDONE, MD_REST = range(4)
# trace modes (P_TRACE; see iosim.engine.trace_source)
TR_NONE, TR_OPEN, TR_CLOSED, TR_VALIDATE = range(4)
# counters reset by Recorder.start (cnt) and kept (tot)
(T_ISSUED, T_COMPLETED, T_FAILOVERS, T_STATUS, T_THROTTLED, T_PAGE_READS, T_PAGE_PROGS,
 T_BUFFERED, T_MEDIA_READS, T_MEDIA_WRITES, T_CACHE_WRITES, T_CACHE_READS) = range(12)
N_READ, N_WRITE, N_BLOCK, N_DEVICE, N_BATCH_K = range(5)
CF_BYTES, CF_BLOCK_BYTES = range(2)
# resource table columns
R_CAP, R_USERS, R_QBASE, R_QCAP, R_QHEAD, R_QCOUNT, R_NOWAIT = range(7)
