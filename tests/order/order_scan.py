#!/usr/bin/env python3
"""order_scan.py - the analysis half of scripts/check-gfx90a-order.sh: reads the
gfx90a code object of tests/order/order_probe.hip (built with -g) and checks,
kernel by kernel, that every release and every acquire of the signal operations
has the instruction sequence LLVM's AMDGPUUsage prescribes for its scope
("Memory Model GFX90A", table "AMDHSA Memory Model Code Sequences GFX90A",
non-tgsplit mode): system scope for what crosses GPUs, agent (device) scope
for the words only this rank's own device touches. Standard library only.

How a point is found: every instruction is attributed, through the debug line
table (llvm-symbolizer --inlining), to the chain of functions it was inlined
from. The innermost shardtab_detail_* function (shardtab/arch_hip.h; the prefix
is left out below) names its role:

  store_release_system, a store       release-store   (row "store atomic release,
                                                       system, global/generic")
  add_release_system, an atomic       release-rmw     (row "atomicrmw release,
                                                       system, global/generic")
  load_acquire_system, a load         acquire-load    (row "load atomic acquire,
                                                       system, global/generic")
  load_relaxed_system, a load         poll            (row "load atomic monotonic,
                                                       system": glc=1)
  fence_acquire and                   acquire-fence   (row "fence acquire, system")
  fence_acquire_system, their
  instructions
  fence, its instructions             seq-cst-fence   (row "fence seq_cst, system"
                                                       = "fence acq_rel, system")
  fence_release_system, its           release-fence   (row "fence release, system")
  instructions
  flag_relaxed_system, a store        flag            (a relaxed store that a
                                                       release fence before it
                                                       publishes)
  store_release_device, a store       release-store-device (row "store atomic
                                                       release, agent")
  cas_acquire_device, an atomic       acquire-rmw-device (row "atomicrmw acquire,
                                                       agent": cmpxchg)
  load_relaxed_device, a load         poll-device     (row "load atomic monotonic,
                                                       agent": glc=1)
  fence_acquire_device, its           acquire-fence-device (row "fence acquire,
  instructions                                         agent")
  fence_release_device, its           release-fence-device (row "fence release,
  instructions                                         agent")
  flag_relaxed_device, a store        flag-device     (a relaxed store that a
                                                       release fence before it
                                                       publishes)
  fetch_or_relaxed_device, an atomic  claim-device    (row "atomicrmw monotonic,
                                                       agent")
  a store under ll_store              ll-store        (an LL word: payload and
                                                       epoch, relaxed)
  a load under ll_load                ll-load         (the same, read)
  an s_barrier of block_sync          block-release / block-acquire, by its
                                      place in the block operation (BLOCK_ROLES
                                      below)

What is checked, by a forward data-flow over the kernel's control-flow graph
(every path; a loop's back edge included). The state says, on some path to an
instruction, whether a store/atomic was issued since the last buffer_wbl2 (D),
a vector-memory access or buffer_wbl2 is outstanding since the last
s_waitcnt vmcnt(0) (V), a flat or LDS access is outstanding since the last
s_waitcnt lgkmcnt(0) (L); the same three for stores and atomics other than
flags only (W: since the last buffer_wbl2; C: with a buffer_wbl2, since the
last s_waitcnt vmcnt(0); A: since the last s_waitcnt vmcnt(0)); whether a
flag poll (a load of shardtab_detail_poll_index) was made since the last acquire
(P); and which acquires, system and agent apart, still owe their wait and
their buffer_invl2 / buffer_wbinvl1_vol. At kernel entry D, V, L, W, C and A
are set (the caller's stores, unknown here).

  release (store, rmw): at the instruction, D and V clear: buffer_wbl2 after
      every earlier store, then s_waitcnt vmcnt(0) after it and after every
      earlier access (rows' steps 1-2). lgkmcnt(0) is the rows' cross-address-
      space part: the __hip_atomic_* calls are syncscope("one-as"), for which
      LLVM orders the atomic's own address space only and a flat access to
      global memory reports through vmcnt, so it is not required (and LDS is
      not visible to another GPU).
  release-store-device: at the store, V clear (the agent row: s_waitcnt
      vmcnt(0) after every earlier access; no L2 writeback at agent scope).
  release-fence: after its last instruction D, V and L clear (buffer_wbl2;
      s_waitcnt vmcnt(0) lgkmcnt(0)); release-fence-device: V and L clear.
  flag: at the store, W and C clear: every earlier store or atomic other than
      a flag was written back by a buffer_wbl2 and done, with the writeback,
      by an s_waitcnt vmcnt(0) - what a system release fence after them does;
      flags in between (the same fence's) are left out, and so are loads after
      the fence (a release orders what precedes it only). flag-device: A
      clear (the agent fence's s_waitcnt vmcnt(0) after every earlier store).
  acquire (load, fence, system): before any later global/flat/buffer access,
      and before s_endpgm: s_waitcnt vmcnt(0) (and lgkmcnt(0) for a fence,
      which orders every address space) covering the acquiring access, then
      buffer_invl2 and buffer_wbinvl1_vol (steps 2-3 of the load row, 1-2 of
      the fence row). The acquire load must carry glc (step 1).
  acquire (rmw, fence, agent): the same without buffer_invl2 (the agent rows).
  unacquired-read: a relaxed load of the pads (poll or poll-device, outside
      shardtab_detail_poll_index and shardtab_aborted: what a deposit holds) on a path
      where a flag poll was made and no acquire followed it: the one acquire
      fence after the polls is missing there.
  block-acquire: the same after the s_barrier that ends a block wait, before
      any later load or atomic (what reads what the peers released; a block
      operation that failed may return after that barrier without acquiring,
      and store only its status).
  seq-cst-fence: the acquire part, and after its last instruction D, V and L
      clear (the release part: buffer_wbl2; s_waitcnt lgkmcnt(0) & vmcnt(0)).
  block-release: at the s_barrier before the leader releases for the block,
      D, V and L clear for this wave: every wave's stores are written back and
      done before the barrier, not only the leader's.
  poll, poll-device: the relaxed load carries glc (bypasses the CU's L1).
  claim-device: the returning atomic carries glc.
  ll-store, ll-load: one 8-byte access (*_store_dwordx2 / *_load_dwordx2:
      single-copy atomic, so the payload and its epoch land and are read
      together); the load with glc. An ll-store after a release fence on
      this path (the ordered form) has W and C clear, as a flag; the fence's
      reach ends at the next barrier of shardtab_detail_coll_deposit_block (the
      ordered deposit fences after its first and ends at its last, so an LL
      store past one is a later call's, which may be unordered).
  ll-reuse: every ll-load is done (an s_waitcnt vmcnt(0) after it) before any
      later ll-store and any s_barrier (after which another wave's next
      deposit may go out): a peer reuses a deposit buffer only after it saw
      this rank's next deposit, so no load may still be in flight then.

The IR of the same source (-emit-llvm) is read too: every release, acquire,
acq_rel or seq_cst operation at system or agent scope must lie in one of the
functions above (the agent-scope ones in the *_device functions, the others in
the *_system ones and shardtab_detail_fence / _fence_acquire), and its kind must be
found in the kernel's machine code.

Usage: order_scan.py --co FILE --ir FILE --probe FILE.ii [--objdump T]
                     [--symbolizer T] [--quiet]
Exit: 0 every point has its sequence, 1 one is missing, 2 set-up error.
"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import argparse
import re
import subprocess
import sys
from collections import defaultdict

# innermost shardtab_* function -> (kind, instruction class it applies to)
PRIMITIVES = {
    "shardtab_detail_store_release_system": ("release-store", "store"),
    "shardtab_detail_add_release_system": ("release-rmw", "atomic"),
    "shardtab_detail_load_acquire_system": ("acquire-load", "load"),
    "shardtab_detail_load_relaxed_system": ("poll", "load"),
    "shardtab_detail_fence_acquire": ("acquire-fence", "group"),
    "shardtab_detail_fence_acquire_system": ("acquire-fence", "group"),
    "shardtab_detail_fence": ("seq-cst-fence", "group"),
    "shardtab_detail_fence_release_system": ("release-fence", "group"),
    "shardtab_detail_flag_relaxed_system": ("flag", "store"),
    "shardtab_detail_store_release_device": ("release-store-device", "store"),
    "shardtab_detail_cas_acquire_device": ("acquire-rmw-device", "atomic"),
    "shardtab_detail_load_relaxed_device": ("poll-device", "load"),
    "shardtab_detail_fence_acquire_device": ("acquire-fence-device", "group"),
    "shardtab_detail_fence_release_device": ("release-fence-device", "group"),
    "shardtab_detail_flag_relaxed_device": ("flag-device", "store"),
    "shardtab_detail_fetch_or_relaxed_device": ("claim-device", "atomic"),
}
FENCE_KINDS = {
    "acquire-fence",
    "seq-cst-fence",
    "release-fence",
    "acquire-fence-device",
    "release-fence-device",
}
# the block operations: what each shardtab_detail_block_sync call is for, in source
# order (shardtab_device.h: set_block releases every wave's stores before its
# one barrier; barrier_block releases before the first and acquires after the
# second; wait_block's first barrier only frees `status`, its second acquires)
BLOCK_ROLES = {
    "shardtab_signal_set_block": ["block-release"],
    "shardtab_barrier_block": ["block-release", "block-acquire"],
    "shardtab_signal_wait_block": [None, "block-acquire"],
    # shardtab_comm.h: get_block's barrier only lets the block read dst;
    # put_signal_block releases before its barrier; signal_after_blocks too, its
    # second barrier only shares `last`. The collectives' barriers order no
    # memory between ranks (their words carry their epoch; an ordered call's
    # fences are each thread's own): coll_deposit_block's share the claim and
    # end the call, coll_gather_block's share the claim, the outcome and the
    # stash, the first failing rank's record, and end the call
    "shardtab_get_block": [None],
    "shardtab_put_signal_block": ["block-release"],
    "shardtab_signal_after_blocks": ["block-release", None],
    "shardtab_detail_coll_deposit_block": [None, None],
    "shardtab_detail_coll_gather_block": [None, None, None, None, None, None],
    # coll_hold_block's share the claim and the counts with every thread
    "shardtab_coll_hold_block": [None, None],
    # the LL wait's: the first frees its outcome word, the second has it set
    # before any thread lowers it, the third lets every thread read dst (its
    # words carry their flag: no memory between ranks is ordered by them)
    "shardtab_wait_ll_block": [None, None, None],
    # kernels/shardtab/collective_body.h: one-block's barrier between its
    # reduce and its second sync (unordered) has every thread's loads of the
    # regions returned (each value is stored in the scratch buffer first) before
    # any of that sync's words go out, and the scratch written for the copy
    # back; it orders no memory between ranks (the words carry their epoch).
    # The bodies are the _as forms (the op's exactness given apart)
    "st_body_one_block_as": [None],
    # st_body_ll_as's barrier hands its leader's words (in shared memory) to
    # every thread before the sync deposits them; no memory between ranks
    "st_body_ll_as": [None],
    # shardtab_halo_device.h, a pushed exchange: the first frees the last
    # call's shared words, the second shares the epoch and the outcome, the
    # third ends the call (every inbox word loaded and its payload stored, the
    # outcome set); its words carry their flag: no memory between ranks is
    # ordered by them
    "shardtab_detail_halo_push_block": [None, None, None],
    # ... pushed by put, its send: the first two as the LL form's, the third
    # after every wave released its slices' cells for the neighbours (the
    # flags' release stores follow it)
    "shardtab_detail_halo_put_send": [None, None, "block-release"],
    # ... and its take: the first has the outcome set before any thread lowers
    # it, the second follows every flag seen (every wave acquires), the third
    # ends the call (every ghost cell stored)
    "shardtab_detail_halo_put_take": [None, "block-acquire", None],
    # kernels/jacobi/jacobi_temporal.h: every wave of a tile that stored into a
    # neighbour releases before the barrier, before its leader's ticket
    "jacobi_temporal_release_block": ["block-release"],
    # kernels/cg/cg_meet.h: the meetings of a rank's grid are device scope,
    # each wave's own release and acquire fences (points of their own); the
    # barriers only order the waves around the leader's fence and word (and
    # hand block 0's outcome to every thread, and free it again)
    "cg_arrive": [None],
    "cg_await_all": [None],
    "cg_publish": [None, None],
    "cg_await_published": [None, None],
    "cg_last_block": [None, None, None],
}
KINDS = [
    "release-store",
    "release-rmw",
    "acquire-load",
    "acquire-fence",
    "seq-cst-fence",
    "release-fence",
    "flag",
    "poll",
    "block-release",
    "block-acquire",
    "release-store-device",
    "acquire-rmw-device",
    "acquire-fence-device",
    "release-fence-device",
    "flag-device",
    "poll-device",
    "claim-device",
    "ll-store",
    "ll-load",
    "unacquired-read",
    "ll-reuse",
]
ROWS = {
    "release-store": "store atomic release, system",
    "release-rmw": "atomicrmw release, system",
    "acquire-load": "load atomic acquire, system",
    "acquire-fence": "fence acquire, system",
    "seq-cst-fence": "fence seq_cst (= acq_rel), system",
    "release-fence": "fence release, system",
    "flag": "store atomic monotonic, system, after fence release, system",
    "poll": "load atomic monotonic, system",
    "block-release": "fence seq_cst, system, before s_barrier",
    "block-acquire": "fence acquire, system, after s_barrier",
    "release-store-device": "store atomic release, agent",
    "acquire-rmw-device": "atomicrmw acquire, agent",
    "acquire-fence-device": "fence acquire, agent",
    "release-fence-device": "fence release, agent",
    "flag-device": "store atomic monotonic, agent, after fence release, agent",
    "poll-device": "load atomic monotonic, agent",
    "unacquired-read": "load atomic monotonic after a poll: fence acquire between",
    "claim-device": "atomicrmw monotonic, agent (returning: glc)",
    "ll-store": "store atomic monotonic, system, 8 bytes: one dwordx2",
    "ll-load": "load atomic monotonic, system, 8 bytes: one dwordx2, glc",
    "ll-reuse": "load atomic monotonic, done (s_waitcnt vmcnt(0)) before a later "
    "LL store and before s_barrier",
}
SHORT = {
    "release-store": "release",
    "release-rmw": "release (rmw)",
    "acquire-load": "acquire",
    "acquire-fence": "acquire (fence)",
    "seq-cst-fence": "seq_cst fence",
    "release-fence": "release (fence)",
    "flag": "flag",
    "poll": "relaxed poll",
    "block-release": "block release",
    "block-acquire": "block acquire",
    "release-store-device": "device release",
    "acquire-rmw-device": "device acquire (cas)",
    "acquire-fence-device": "device acquire (fence)",
    "release-fence-device": "device release (fence)",
    "flag-device": "device flag",
    "poll-device": "device relaxed load",
    "unacquired-read": "read after the acquire",
    "claim-device": "device claim (relaxed rmw)",
    "ll-store": "LL store",
    "ll-load": "LL load",
    "ll-reuse": "LL load done first",
}
SYS_ACQUIRES = {"acquire-load", "acquire-fence", "seq-cst-fence", "block-acquire"}
DEV_ACQUIRES = {"acquire-rmw-device", "acquire-fence-device"}
CACHE_OPS = {"buffer_wbl2", "buffer_invl2", "buffer_wbinvl1", "buffer_wbinvl1_vol"}
ORDER_OPS = CACHE_OPS | {"s_waitcnt", "s_barrier"}


class Ins:
    def __init__(self, addr, mnem, ops):
        self.addr, self.mnem, self.ops = addr, mnem, ops
        self.chain = []  # [(function, line)], innermost first
        self.kind = None  # a point kind, or None
        self.pid = None  # the point's id (its first instruction)
        self.opens = False  # first instruction of a fence group
        self.closes = False  # last instruction of a fence group
        self.flag_poll = False  # a load of shardtab_detail_poll_index (a flag polled)
        self.payload = False  # a relaxed pad load outside it (what a deposit holds)
        self.deposit_barrier = (
            False  # an s_barrier of shardtab_detail_coll_deposit_block
        )
        self.cls = classify(mnem)

    def text(self):
        return (self.mnem + " " + self.ops).strip()


def classify(m):
    """What an instruction is to the memory model."""
    if m in CACHE_OPS:
        return m
    if m.startswith(("global_", "flat_", "buffer_", "scratch_")):
        if "_atomic" in m:
            return "atomic"
        if "_load" in m:
            return "load"
        if "_store" in m:
            return "store"
        return "vmem"
    if m.startswith("ds_"):
        return "lds"
    return None


def die(msg):
    print("order_scan: " + msg, file=sys.stderr)
    sys.exit(2)


def run(cmd, stdin=None):
    try:
        return subprocess.run(
            cmd, input=stdin, capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        die("%s failed: %s" % (" ".join(cmd), getattr(e, "stderr", "") or e))


def disassemble(objdump, co):
    """{kernel: [Ins]} for the probe_* symbols of the code object."""
    kernels, cur = {}, None
    sym = re.compile(r"^[0-9a-fA-F]+ <([^>]+)>:$")
    line = re.compile(r"^\s+(\S+)(.*?)\s*//\s*([0-9A-Fa-f]+):")
    for text in run([objdump, "-d", "--mcpu=gfx90a", co]).splitlines():
        m = sym.match(text)
        if m:
            cur = m.group(1) if m.group(1).startswith("probe_") else None
            if cur:
                kernels[cur] = []
            continue
        m = line.match(text)
        if m and cur:
            kernels[cur].append(
                Ins(int(m.group(3), 16), m.group(1), m.group(2).strip())
            )
    for name, code in kernels.items():
        # the padding after s_endpgm is never reached; drop it from the listing
        while code and code[-1].mnem == "s_nop":
            code.pop()
        # the last block may be a loop's body that branches back (the code
        # layout puts s_endpgm wherever it likes): it must not fall off the end
        if (
            not code
            or code[-1].mnem not in ("s_endpgm", "s_branch")
            or not any(i.mnem == "s_endpgm" for i in code)
        ):
            die("kernel %s: its code falls off its end, or has no s_endpgm" % name)
    return kernels


def symbolize(symbolizer, co, kernels):
    addrs = [i for code in kernels.values() for i in code]
    out = run(
        [symbolizer, "--obj=" + co, "--inlining", "--functions=short"],
        "\n".join("0x%x" % i.addr for i in addrs) + "\n",
    )
    blocks = out.strip("\n").split("\n\n")
    if len(blocks) != len(addrs):
        die(
            "llvm-symbolizer gave %d answers for %d addresses"
            % (len(blocks), len(addrs))
        )
    for ins, block in zip(addrs, blocks):
        rows = block.splitlines()
        for k in range(0, len(rows) - 1, 2):
            m = re.search(r":(\d+)(?::\d+)?$", rows[k + 1])
            ins.chain.append((rows[k].strip(), int(m.group(1)) if m else 0))


def inner_shardtab(ins):
    for k, (fn, _) in enumerate(ins.chain):
        if fn.startswith("shardtab_"):
            return k
    return None


def chain_text(ins):
    names = [fn for fn, _ in ins.chain if fn.startswith("shardtab_")]
    return " > ".join(reversed(names))


def successors(code, k, index):
    ins = code[k]
    m = ins.mnem
    if m == "s_endpgm":
        return []
    if m in ("s_setpc_b64", "s_swappc_b64", "s_call_b64"):
        die(
            "%s at 0x%x: calls are not followed (the probes must inline everything)"
            % (m, ins.addr)
        )
    if m == "s_branch" or m.startswith("s_cbranch_"):
        imm = int(ins.ops.split()[0], 0) & 0xFFFF
        imm = imm - 0x10000 if imm & 0x8000 else imm
        target = ins.addr + 4 + 4 * imm
        if target not in index:
            die("branch at 0x%x to 0x%x: not an instruction" % (ins.addr, target))
        nxt = [index[target]]
        if m.startswith("s_cbranch_"):
            nxt.append(k + 1)
        return nxt
    return [k + 1]


def label(code):
    """Give each instruction its point kind; group the fences' instructions."""
    starts = set()
    index = {ins.addr: k for k, ins in enumerate(code)}
    for k in range(len(code)):
        for s in successors(code, k, index):
            if s != k + 1:
                starts.add(s)
    block_calls = defaultdict(
        set
    )  # op -> call lines of shardtab_detail_block_sync in it
    for ins in code:
        k = inner_shardtab(ins)
        if k is None:
            continue
        fn = ins.chain[k][0]
        if fn in PRIMITIVES:
            kind, cls = PRIMITIVES[fn]
            # a fence is its waits and cache operations: another instruction the
            # line table gives the fence's line (at -g, an exec-mask move of the
            # code after it) neither belongs to it nor opens a second one
            if (cls == "group" and ins.mnem in ORDER_OPS) or ins.cls == cls:
                ins.kind = kind
        callers = {f for f, _ in ins.chain}
        if ins.cls == "store" and "shardtab_detail_ll_store" in callers:
            ins.kind = "ll-store"
        if ins.cls == "load" and "shardtab_detail_ll_load" in callers:
            ins.kind = "ll-load"
        if ins.cls == "load":
            if "shardtab_detail_poll_index" in callers:
                ins.flag_poll = True
            elif (
                ins.kind in ("poll", "poll-device", "ll-load")
                and "shardtab_aborted" not in callers
            ):
                ins.payload = True
        if (
            fn == "shardtab_detail_block_sync"
            and ins.mnem == "s_barrier"
            and k + 1 < len(ins.chain)
        ):
            block_calls[ins.chain[k + 1][0]].add(ins.chain[k + 1][1])
            ins.deposit_barrier = (
                ins.chain[k + 1][0] == "shardtab_detail_coll_deposit_block"
            )
    problems = []
    for op, lines in block_calls.items():
        roles = BLOCK_ROLES.get(op)
        if roles is None:
            problems.append(
                "%s calls shardtab_detail_block_sync, and order_scan.py's BLOCK_ROLES "
                "does not say what for" % op
            )
            continue
        if len(lines) > len(roles) or (len(lines) < len(roles) and any(roles)):
            # a barrier that orders nothing between ranks may be left out by
            # the compiler on a path it proved (a held collective's claim
            # refusal); a releasing or acquiring one may not
            problems.append(
                "%s has %d block barriers, order_scan.py's BLOCK_ROLES names %d"
                % (op, len(lines), len(roles))
            )
            continue
        order = sorted(lines)
        for ins in code:
            k = inner_shardtab(ins)
            if (
                k is not None
                and ins.mnem == "s_barrier"
                and ins.chain[k][0] == "shardtab_detail_block_sync"
                and k + 1 < len(ins.chain)
                and ins.chain[k + 1][0] == op
            ):
                ins.kind = roles[order.index(ins.chain[k + 1][1])]
    # fence groups: runs of one fence's instructions (same inline chain); other
    # instructions that are not memory, cache or wait instructions do not break one
    group_key, last = None, None
    for k, ins in enumerate(code):
        key = tuple(ins.chain) if ins.kind in FENCE_KINDS else None
        if (
            k in starts
            or (key is None and (ins.cls or ins.mnem in ORDER_OPS))
            or (key is not None and key != group_key)
        ):
            if last is not None:
                last.closes = True
            group_key, last = None, None
        if key is not None:
            if group_key is None:
                ins.opens, group_key = True, key
                first = ins
            ins.pid = first.addr
            last = ins
        elif ins.kind:
            ins.pid = ins.addr
    if last is not None:
        last.closes = True
    return index, problems


def waits(ops):
    """(vmcnt(0)?, lgkmcnt(0)?) of an s_waitcnt's operands."""
    if re.fullmatch(r"0(x0)?", ops.strip()):
        return True, True
    return "vmcnt(0)" in ops, "lgkmcnt(0)" in ops


class State(tuple):
    """The data-flow state before an instruction (see the docstring): the
    store/access bits, P, and the two acquire trackers, system (s*) and agent
    (d*), each with the points that still owe something."""

    FIELDS = (
        "D",
        "V",
        "L",
        "W",
        "C",
        "A",
        "P",
        "sAV",
        "sAL",
        "sI2",
        "sI1",
        "ssrc",
        "dAV",
        "dAL",
        "dI1",
        "dsrc",
        "R",
        "F",
    )

    def __new__(cls, **kw):
        return tuple.__new__(cls, tuple(kw[f] for f in cls.FIELDS))

    def __getattr__(self, name):
        return self[State.FIELDS.index(name)]

    def but(self, **kw):
        d = dict(zip(State.FIELDS, self))
        d.update(kw)
        return State(**d)


ENTRY = State(
    D=True,
    V=True,
    L=True,
    W=True,
    C=True,
    A=True,
    P=False,
    sAV=False,
    sAL=False,
    sI2=False,
    sI1=False,
    ssrc=frozenset(),
    dAV=False,
    dAL=False,
    dI1=False,
    dsrc=frozenset(),
    R=frozenset(),
    F=False,
)


def step(st, ins, viol=None):
    """The state after ins, from the state before it; violations go to viol."""
    f = dict(zip(State.FIELDS, st))

    def bad(pid, kind, what):
        if viol is not None:
            viol.append((pid, kind, what, ins))

    if ins.opens and ins.kind in ("acquire-fence", "seq-cst-fence"):
        f.update(
            sAV=f["sAV"] or f["V"],
            sAL=f["sAL"] or f["L"],
            sI2=True,
            sI1=True,
            ssrc=f["ssrc"] | {(ins.pid, ins.kind)},
            P=False,
        )
    if ins.opens and ins.kind == "acquire-fence-device":
        f.update(
            dAV=f["dAV"] or f["V"],
            dAL=f["dAL"] or f["L"],
            dI1=True,
            dsrc=f["dsrc"] | {(ins.pid, ins.kind)},
            P=False,
        )
    if ins.cls in ("load", "store", "atomic", "vmem") or ins.mnem == "s_endpgm":
        for pre, names in (("s", ("AV", "AL", "I2", "I1")), ("d", ("AV", "AL", "I1"))):
            owed = {n: f[pre + n] for n in names}
            if not f[pre + "src"] or not any(owed.values()):
                continue
            miss = []
            if owed["AV"] or owed["AL"]:
                miss.append(
                    "s_waitcnt %s"
                    % " ".join(
                        n
                        for n, x in (
                            ("vmcnt(0)", owed["AV"]),
                            ("lgkmcnt(0)", owed["AL"]),
                        )
                        if x
                    )
                )
            if owed.get("I2"):
                miss.append("buffer_invl2")
            if owed["I1"]:
                miss.append("buffer_wbinvl1_vol")
            for pid, kind in sorted(f[pre + "src"]):
                # a block's acquire is owed by what reads: a block operation that
                # failed returns after the barrier without it, storing its status
                if kind == "block-acquire" and ins.cls not in ("load", "atomic"):
                    continue
                bad(
                    pid,
                    kind,
                    "reached with %s still missing after the acquire"
                    % " and ".join(miss),
                )
    D, V, L, W, C, A = f["D"], f["V"], f["L"], f["W"], f["C"], f["A"]
    if ins.kind in ("release-store", "release-rmw", "block-release"):
        miss = []
        if D:
            miss.append("buffer_wbl2 after an earlier store")
        if V:
            miss.append("s_waitcnt vmcnt(0) after buffer_wbl2 and the earlier accesses")
        if L and ins.kind == "block-release":
            miss.append("s_waitcnt lgkmcnt(0)")
        if miss:
            bad(
                ins.pid, ins.kind, "missing before %s: %s" % (ins.mnem, "; ".join(miss))
            )
    if ins.kind == "release-store-device" and V:
        bad(
            ins.pid,
            ins.kind,
            "missing before %s: s_waitcnt vmcnt(0) after the earlier accesses"
            % ins.mnem,
        )
    if ins.kind == "flag" and (W or C):
        miss = [
            w
            for w, x in (
                ("buffer_wbl2 after an earlier store", W),
                ("s_waitcnt vmcnt(0) after the writeback and that store", C),
            )
            if x
        ]
        bad(
            ins.pid,
            ins.kind,
            "missing before %s since the last store that is not a flag: %s "
            "(the release fence before the flags)" % (ins.mnem, "; ".join(miss)),
        )
    if ins.kind == "flag-device" and A:
        bad(
            ins.pid,
            ins.kind,
            "missing before %s since the last store that is not a flag: "
            "s_waitcnt vmcnt(0) (the release fence before the flags)" % ins.mnem,
        )
    if ins.kind == "ll-store" and not ins.mnem.endswith("store_dwordx2"):
        bad(
            ins.pid,
            ins.kind,
            "%s is not one 8-byte store: the payload and its epoch must land "
            "together (single-copy atomic)" % ins.mnem,
        )
    if ins.kind == "ll-load" and not ins.mnem.endswith("load_dwordx2"):
        bad(
            ins.pid,
            ins.kind,
            "%s is not one 8-byte load: the payload and its epoch must be read "
            "together (single-copy atomic)" % ins.mnem,
        )
    if ins.kind == "ll-store" and f["F"] and (W or C):
        bad(
            ins.pid,
            ins.kind,
            "missing before %s, after the release fence before it, since the last "
            "store that is neither a flag nor an LL word: %s"
            % (
                ins.mnem,
                "; ".join(
                    w
                    for w, x in (
                        ("buffer_wbl2 after that store", W),
                        ("s_waitcnt vmcnt(0) after the writeback and that store", C),
                    )
                    if x
                ),
            ),
        )
    if f["R"] and (ins.kind == "ll-store" or ins.mnem == "s_barrier"):
        for pid in sorted(f["R"]):
            bad(
                pid,
                "ll-reuse",
                "%s at 0x%x reached with this LL load not yet done (no s_waitcnt "
                "vmcnt(0) between): the peer may reuse its buffer once this rank's "
                "next deposit is seen" % (ins.mnem, ins.addr),
            )
    if ins.kind == "claim-device" and not re.search(r"\bglc\b", ins.ops):
        bad(ins.pid, ins.kind, "%s without glc (the claim reads the word)" % ins.mnem)
    if ins.kind in ("acquire-load", "poll", "poll-device", "ll-load") and not re.search(
        r"\bglc\b", ins.ops
    ):
        bad(ins.pid, ins.kind, "%s without glc (row step 1: glc=1)" % ins.mnem)
    if ins.payload and f["P"]:
        bad(
            ins.addr,
            "unacquired-read",
            "%s of a deposit after a relaxed poll of a flag, with no "
            "acquire fence between them on this path" % ins.mnem,
        )
    # effects
    m = ins.mnem
    if m == "s_waitcnt":
        vm, lgkm = waits(ins.ops)
        if vm:
            f.update(V=False, C=False, A=False, sAV=False, dAV=False, R=frozenset())
        if lgkm:
            f.update(L=False, sAL=False, dAL=False)
    elif m == "buffer_wbl2":
        f.update(D=False, V=True, W=False, C=True)
    elif m == "buffer_invl2":
        if not (f["sAV"] or f["sAL"]):
            f["sI2"] = False
    elif m in ("buffer_wbinvl1_vol", "buffer_wbinvl1"):
        if not (f["sAV"] or f["sAL"]):
            f["sI1"] = False
        if not (f["dAV"] or f["dAL"]):
            f["dI1"] = False
    elif ins.cls in ("load", "store", "atomic", "vmem"):
        f["V"] = True
        if ins.cls in ("store", "atomic"):
            f["D"] = True
            if ins.kind not in ("flag", "flag-device", "ll-store"):
                f.update(W=True, C=True, A=True)
        if m.startswith("flat_"):
            f["L"] = True
    elif ins.cls == "lds":
        f["L"] = True
    if ins.flag_poll:
        f["P"] = True
    if ins.kind == "ll-load":
        f["R"] = f["R"] | {ins.pid}
    if ins.kind in ("release-fence", "release-fence-device"):
        f["F"] = True
    if ins.deposit_barrier:
        f["F"] = False
    if ins.kind == "acquire-load":
        f.update(
            sAV=True,
            sI2=True,
            sI1=True,
            ssrc=f["ssrc"] | {(ins.pid, ins.kind)},
            P=False,
        )
    if ins.kind == "acquire-rmw-device":
        f.update(dAV=True, dI1=True, dsrc=f["dsrc"] | {(ins.pid, ins.kind)}, P=False)
    if ins.kind == "block-acquire":
        f.update(
            sAV=f["sAV"] or f["V"],
            sAL=f["sAL"] or f["L"],
            sI2=True,
            sI1=True,
            ssrc=f["ssrc"] | {(ins.pid, ins.kind)},
        )
    if (
        ins.closes
        and ins.kind in ("seq-cst-fence", "release-fence")
        and (f["D"] or f["V"] or f["L"])
    ):
        miss = [
            w
            for w, x in (
                ("buffer_wbl2 after the earlier stores", f["D"]),
                ("s_waitcnt vmcnt(0)", f["V"]),
                ("s_waitcnt lgkmcnt(0)", f["L"]),
            )
            if x
        ]
        bad(ins.pid, ins.kind, "its release part is missing: %s" % "; ".join(miss))
    if ins.closes and ins.kind == "release-fence-device" and (f["V"] or f["L"]):
        miss = [
            w
            for w, x in (
                ("s_waitcnt vmcnt(0)", f["V"]),
                ("s_waitcnt lgkmcnt(0)", f["L"]),
            )
            if x
        ]
        bad(ins.pid, ins.kind, "its release part is missing: %s" % "; ".join(miss))
    if not (f["sAV"] or f["sAL"] or f["sI2"] or f["sI1"]):
        f["ssrc"] = frozenset()
    if not (f["dAV"] or f["dAL"] or f["dI1"]):
        f["dsrc"] = frozenset()
    return State(**f)


def join(a, b):
    return State(**{n: (x | y) for n, x, y in zip(State.FIELDS, a, b)})


def flow(code, index):
    """Fixpoint of the states before each instruction; None where unreachable."""
    before = [None] * len(code)
    before[0] = ENTRY
    work = [0]
    while work:
        k = work.pop()
        out = step(before[k], code[k])
        for s in successors(code, k, index):
            new = out if before[s] is None else join(before[s], out)
            if new != before[s]:
                before[s] = new
                work.append(s)
    return before


def window(code, k, kind):
    """The order-relevant instructions around point k, as the report shows them."""
    ins = code[k]
    if kind in (
        "release-store",
        "release-rmw",
        "block-release",
        "release-store-device",
        "flag",
        "flag-device",
    ):
        seq, j = [ins.mnem], k - 1
        while (
            j >= 0
            and code[j].mnem not in ("s_branch",)
            and not code[j].mnem.startswith("s_cbranch")
        ):
            c = code[j]
            if c.cls in ("load", "store", "atomic", "vmem", "lds"):
                break
            if c.mnem in ORDER_OPS or c.cls in CACHE_OPS:
                seq.insert(0, c.text() if c.mnem == "s_waitcnt" else c.mnem)
                if c.mnem == "buffer_wbl2":
                    break
            j -= 1
        return "; ".join(seq)
    if kind in FENCE_KINDS:
        seq = []
        for c in code[k:]:
            if c.pid != ins.pid:
                if c.cls or c.mnem in ORDER_OPS:
                    break
                continue
            if c.mnem in ORDER_OPS or c.cls in CACHE_OPS:
                seq.append(c.text() if c.mnem == "s_waitcnt" else c.mnem)
        return "; ".join(seq) if seq else "(no instruction)"
    if kind in ("poll", "poll-device", "ll-load", "ll-store", "claim-device"):
        return ins.mnem + (" glc" if re.search(r"\bglc\b", ins.ops) else "")
    # acquire-load, acquire-rmw-device, block-acquire: the point, then what
    # follows up to the invalidates
    seq = [ins.mnem + (" glc" if re.search(r"\bglc\b", ins.ops) else "")]
    for c in code[k + 1 :]:
        if (
            c.cls in ("load", "store", "atomic", "vmem")
            or c.mnem.startswith(("s_branch", "s_cbranch"))
            or c.mnem == "s_endpgm"
        ):
            break
        if c.mnem in ORDER_OPS or c.cls in CACHE_OPS:
            seq.append(c.text() if c.mnem == "s_waitcnt" else c.mnem)
            if c.mnem == "buffer_wbinvl1_vol":
                break
    return "; ".join(seq)


def read_expectations(path):
    """{probe: [kinds]} from the preprocessed probe source, where each
    ORDER_PROBE(name, "kinds") left static_assert(1, "ORDER_PROBE " "name" ": " "kinds").
    """
    text = open(path, encoding="utf-8", errors="replace").read()
    want = {}
    for m in re.finditer(r'static_assert\(1,\s*((?:"[^"]*"\s*)+)\)', text):
        msg = "".join(re.findall(r'"([^"]*)"', m.group(1)))
        p = re.fullmatch(r"ORDER_PROBE (\w+): (.*)", msg)
        if not p:
            continue
        kinds = [k.strip() for k in p.group(2).split(",") if k.strip()]
        for k in kinds:
            if k not in KINDS:
                die("%s: probe %s expects unknown kind %r" % (path, p.group(1), k))
        want[p.group(1)] = kinds
    if not want:
        die('%s: no ORDER_PROBE(name, "kinds") in the preprocessed probe source' % path)
    return want


def read_ir(path):
    """[(kernel, innermost function, ordering, syncscope, text)] of the IR's
    release/acquire operations."""
    lines = open(path, encoding="utf-8").read().splitlines()
    meta = {}
    for text in lines:
        m = re.match(r"^(!\d+) = (?:distinct )?!(\w+)\((.*)\)$", text)
        if m:
            meta[m.group(1)] = (m.group(2), m.group(3))

    def field(body, name):
        m = re.search(r"\b%s: (\"[^\"]*\"|!\d+|\d+)" % name, body)
        return m.group(1).strip('"') if m else None

    def function_of(dbg):
        node, seen = dbg, 0
        while node in meta and seen < 64:
            tag, body = meta[node]
            if tag == "DISubprogram":
                return field(body, "name")
            node, seen = field(body, "scope"), seen + 1
        return "?"

    ops, kernel = [], None
    for text in lines:
        m = re.match(r"^define .*@(\w+)\(", text)
        if m:
            kernel = m.group(1)
            continue
        if text.startswith("}"):
            kernel = None
            continue
        if kernel is None or not kernel.startswith("probe_"):
            continue
        if not re.search(
            r"\b(store atomic|load atomic|atomicrmw|cmpxchg|fence)\b", text
        ):
            continue
        orders = re.findall(r"\b(monotonic|acquire|release|acq_rel|seq_cst)\b", text)
        if not set(orders) & {"acquire", "release", "acq_rel", "seq_cst"}:
            continue
        scope = re.search(r'syncscope\("([^"]*)"\)', text)
        dbg = re.search(r"!dbg (!\d+)", text)
        ops.append(
            (
                kernel,
                function_of(dbg.group(1)) if dbg else "?",
                " ".join(orders),
                scope.group(1) if scope else "",
                text.strip(),
            )
        )
    return ops


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--co", required=True)
    ap.add_argument("--ir", required=True)
    ap.add_argument(
        "--probe", required=True, help="the probe source, preprocessed (clang -E)"
    )
    ap.add_argument("--objdump", default="llvm-objdump-15")
    ap.add_argument("--symbolizer", default="llvm-symbolizer-15")
    ap.add_argument(
        "--quiet", action="store_true", help="print only failures and the summary"
    )
    a = ap.parse_args()

    want = read_expectations(a.probe)
    kernels = disassemble(a.objdump, a.co)
    symbolize(a.symbolizer, a.co, kernels)
    ir = read_ir(a.ir)
    failed, npoints = [], defaultdict(int)
    for name in sorted(set(want) - set(kernels)):
        failed.append((name, "missing", "no kernel of that name in the code object"))
    for name in sorted(set(kernels) - set(want)):
        failed.append((name, "missing", "a kernel without its ORDER_PROBE line"))
    for name in [n for n in want if n in kernels]:
        code = kernels[name]
        index, problems = label(code)
        for p in problems:
            failed.append((name, "setup", p))
        before = flow(code, index)
        viol = []
        for k, ins in enumerate(code):
            if before[k] is not None:
                step(before[k], ins, viol)
        points = {}  # pid -> (kind, first index)
        for k, ins in enumerate(code):
            if ins.kind and before[k] is not None and ins.pid not in points:
                points[ins.pid] = (ins.kind, k)
        bad = defaultdict(
            list
        )  # pid -> messages (an acquire's: at the first access only)
        for pid, kind, what, at in viol:
            if what not in [w for w, _, _ in bad[pid]]:
                bad[pid].append(
                    (
                        what,
                        "%s at 0x%x %s" % (at.mnem, at.addr, what)
                        if what.startswith("reached with")
                        else what,
                        kind,
                    )
                )
        seqs = defaultdict(lambda: defaultdict(int))  # kind -> window -> count
        for pid, (kind, k) in sorted(points.items()):
            npoints[kind] += 1
            if pid in bad:
                for _, what, vkind in bad[pid]:
                    failed.append(
                        (
                            name,
                            vkind,
                            '%s at 0x%x (%s; row "%s"): %s [seen: %s]'
                            % (
                                SHORT[vkind],
                                pid,
                                chain_text(code[k]),
                                ROWS[vkind],
                                what,
                                window(code, k, kind),
                            ),
                        )
                    )
            else:
                seqs[kind][window(code, k, kind)] += 1
        found = {kind for kind, _ in points.values()}
        for kind in want[name]:
            if kind not in found:
                failed.append(
                    (
                        name,
                        kind,
                        'no %s found (the probe expects one; row "%s")'
                        % (SHORT[kind], ROWS[kind]),
                    )
                )
        # the IR: every release/acquire lies in a function known above, at its scope
        ir_system = {
            "shardtab_detail_store_release_system": "release-store",
            "shardtab_detail_add_release_system": "release-rmw",
            "shardtab_detail_load_acquire_system": "acquire-load",
            "shardtab_detail_fence_acquire": "acquire-fence",
            "shardtab_detail_fence_acquire_system": "acquire-fence",
            "shardtab_detail_fence": "seq-cst-fence",
            "shardtab_detail_fence_release_system": "release-fence",
        }
        ir_agent = {
            "shardtab_detail_store_release_device": "release-store-device",
            "shardtab_detail_cas_acquire_device": "acquire-rmw-device",
            "shardtab_detail_fence_acquire_device": "acquire-fence-device",
            "shardtab_detail_fence_release_device": "release-fence-device",
        }
        for kern, fn, order, scope, text in ir:
            if kern != name:
                continue
            base = scope.replace("-one-as", "").replace("one-as", "")
            if base in ("workgroup", "wavefront", "singlethread"):
                if fn.startswith("shardtab_"):
                    failed.append(
                        (
                            name,
                            "ir-scope",
                            "%s: %s at %s scope, not %s: %s"
                            % (
                                fn,
                                order,
                                scope,
                                "agent" if fn in ir_agent else "system",
                                text,
                            ),
                        )
                    )
                continue
            known = ir_agent if base == "agent" else ir_system
            other = ir_system if base == "agent" else ir_agent
            if fn in other:
                failed.append(
                    (
                        name,
                        "ir-scope",
                        "%s: %s at %s scope, not %s: %s"
                        % (
                            fn,
                            order,
                            scope or "system",
                            "system" if base == "agent" else "agent",
                            text,
                        ),
                    )
                )
            elif fn not in known:
                failed.append(
                    (
                        name,
                        "ir-scope" if base == "agent" else "ir-unknown",
                        "%s %s in %s, which the check does not know at that scope "
                        "(add it to order_scan.py): %s"
                        % (order, scope or "system", fn, text),
                    )
                )
            elif known[fn] not in found:
                failed.append(
                    (
                        name,
                        known[fn],
                        "the IR has a %s (%s) in %s, the machine code "
                        "none" % (SHORT[known[fn]], order, fn),
                    )
                )
        if not a.quiet and not any(f[0] == name for f in failed):
            parts = []
            for kind in KINDS:
                if kind in seqs:
                    n = sum(seqs[kind].values())
                    parts.append(
                        "%s ok%s (%s)"
                        % (
                            SHORT[kind],
                            " x%d" % n if n > 1 else "",
                            " | ".join(sorted(seqs[kind])),
                        )
                    )
            print("# gfx90a order: %s: %s" % (name, ", ".join(parts) or "no points"))
    for name, kind, what in failed:
        print("# gfx90a order: %s: FAILED %s: %s" % (name, kind, what))
    total = sum(npoints.values())
    detail = ", ".join("%d %s" % (npoints[k], SHORT[k]) for k in KINDS if npoints[k])
    if failed:
        print(
            "# gfx90a order: FAILED: %d of %d probes miss a prescribed sequence (%d points: %s)"
            % (len({f[0] for f in failed}), len(want), total, detail)
        )
        return 1
    print(
        "# gfx90a order: %d probes, %d ordering points (%s): every one has the "
        'sequence of AMDGPUUsage "Memory Model GFX90A" at its scope'
        % (len(want), total, detail)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
