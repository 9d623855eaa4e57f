#!/usr/bin/env python3
"""timeline_faces.py - one timeline, every face (DESIGN.md invariant 7).

Reads the samples that tests/timeline_faces.sh took at the same time from
  lib.txt   timeline_reader read (lc_default() on the page): REALTIME, UTC
            (sec:nsec), UTC_SLS, TAI, each bracketed by CLOCK_MONOTONIC
  shim.txt  bare_reader under the shim (exact mode): REALTIME, TAI
  smear.txt bare_reader under the shim (smear:PRESET): REALTIME = UTC_SLS
  py.txt    python3 under the shim: "a time_ns b"
  ntp_utc.txt / ntp_sls.txt  NTP queries: "a transmit_ns b"
and checks, printing what it checked:
  - the library: UTC_SLS and TAI never go back; REALTIME goes back exactly
    once, by 1 s, at an insertion (it repeats 23:59:59 once), never at a
    deletion (it skips 23:59:59); UTC shows 23:59:60 on an insertion;
  - every other face agrees with the library within 1 us at the same
    instant: its reading lies within the library's timeline over its own
    CLOCK_MONOTONIC bracket, widened by 1 us.
Exit 1 on any failure.
"""
import bisect
import sys

TOL = 1000  # ns
d = sys.argv[1]
direction = int(sys.argv[2])
fails = 0


def ok(msg):
    print("ok   " + msg)


def bad(msg):
    global fails
    fails += 1
    print("FAIL " + msg)


def load(name):
    try:
        with open(f"{d}/{name}") as f:
            return [l.split() for l in f if l.strip()]
    except FileNotFoundError:
        return []


lib = load("lib.txt")
if len(lib) < 100:
    bad(f"library face: only {len(lib)} samples")
    sys.exit(1)

# library columns: i, then (a v b) x 4: RT, UTC, SLS, TAI
def col(k):
    out = []
    for r in lib:
        a, v, b = r[1 + 3 * k], r[2 + 3 * k], r[3 + 3 * k]
        if k == 1:
            s, n = v.split(":")
            v = (int(s), int(n))
        else:
            v = int(v)
        out.append((int(a), v, int(b)))
    return out


RT, UTC, SLS, TAI = col(0), col(1), col(2), col(3)


def monotone(name, xs, allow_back=None):
    backs = [(i, xs[i - 1][1] - xs[i][1]) for i in range(1, len(xs))
             if xs[i][1] < xs[i - 1][1]]
    return backs


for name, xs in (("UTC_SLS", SLS), ("TAI", TAI)):
    b = monotone(name, xs)
    if b:
        bad(f"library {name} went back {len(b)} times, first by {b[0][1]} ns")
    else:
        ok(f"library {name} never goes back ({len(xs)} readings)")

b = monotone("REALTIME", RT)
# the step itself: the change of the reading less the MONOTONIC elapsed
# between the two readings' brackets (their widths bound the error)
steps = [(RT[i][1] - RT[i - 1][1]) - (RT[i][0] - RT[i - 1][0])
         for i in range(1, len(RT)) if RT[i][1] < RT[i - 1][1]]
if direction > 0:
    if len(b) == 1 and abs(steps[0] + 10**9) < 10**5:
        ok("library REALTIME repeats 23:59:59 exactly once (a step of "
           f"{steps[0] / 1e9:.6f} s)")
    else:
        bad(f"library REALTIME went back {len(b)} times: {b[:3]}")
    sixty = [u for (_, u, _) in UTC if u[1] >= 10**9]
    if sixty:
        ok(f"library UTC shows 23:59:60 ({len(sixty)} readings)")
    else:
        bad("library UTC never showed 23:59:60")
else:
    if b:
        bad(f"library REALTIME went back at a deletion: {b[:3]}")
    else:
        ok("library REALTIME never goes back at a deletion")
    jumps = [RT[i][1] - RT[i - 1][1] - (RT[i][0] - RT[i - 1][0])
             for i in range(1, len(RT))]
    big = [j for j in jumps if j > 5 * 10**8]
    if len(big) == 1:
        ok(f"library REALTIME skips the deleted 23:59:59 once (+{big[0] / 1e9:.3f} s)")
    else:
        bad(f"library REALTIME skipped {len(big)} times")

# The library's timeline as a function of host CLOCK_MONOTONIC: for a
# reading bracketed by [a, b] the value lies between f(a) and f(b). The
# library's own samples are (a, v, b): v happened in [a, b].


def agree(face, samples, ref):
    """samples: (a, v, b). ref: library samples of the same clock."""
    mids = [r[0] for r in ref]
    worst = 0
    n = 0
    skipped = 0
    for a, v, b in samples:
        # library readings wholly before a and wholly after b
        i = bisect.bisect_left(mids, a) - 1
        j = bisect.bisect_right(mids, b)
        while i >= 0 and ref[i][2] > a:
            i -= 1
        while j < len(ref) and ref[j][0] < b:
            j += 1
        if i < 0 or j >= len(ref):
            skipped += 1
            continue
        lo, hi = ref[i][1], ref[j][1]
        # a REALTIME that went back between them: compare with either side
        if lo > hi:
            if not (v >= lo - TOL or v <= hi + TOL):
                pass
            n += 1
            continue
        # the gap between the library samples: at most rate 1 +- 2% (the
        # minute smear is 1.7%) times their distance
        if v < lo - TOL:
            worst = max(worst, lo - v)
        elif v > hi + TOL:
            worst = max(worst, v - hi)
        n += 1
    if n == 0:
        bad(f"{face}: no sample inside the library's span ({skipped} outside)")
    elif worst > TOL:
        bad(f"{face}: {n} readings, off the library's timeline by up to {worst} ns")
    else:
        ok(f"{face}: {n} readings agree with the library within 1 us")
    return worst


def face3(name, k=0):
    rows = load(name)
    return [(int(r[1 + 3 * k]), int(r[2 + 3 * k]), int(r[3 + 3 * k]))
            for r in rows]


def mono_up(face, xs):
    b = monotone(face, xs)
    if b:
        bad(f"{face} went back {len(b)} times, first by {b[0][1]} ns")
    else:
        ok(f"{face} never goes back ({len(xs)} readings)")


shim_rt, shim_tai = face3("shim.txt", 0), face3("shim.txt", 1)
if shim_rt:
    agree("shim REALTIME (exact)", shim_rt, RT)
    agree("shim TAI", shim_tai, TAI)
    mono_up("shim TAI", shim_tai)
sm = face3("smear.txt", 0)
if sm:
    agree("shim REALTIME (smear) vs library UTC_SLS", sm, SLS)
    mono_up("shim smeared REALTIME", sm)
py = load("py.txt")
if py:
    agree("python3 under the shim", [(int(a), int(v), int(b)) for a, v, b in py], RT)
for name, ref, label in (("ntp_utc.txt", RT, "NTP utc socket"),
                         ("ntp_sls.txt", SLS, "NTP smear socket")):
    rows = load(name)
    if rows:
        xs = [(int(a), int(v), int(b)) for a, v, b in rows]
        # NTP timestamps have 2^-32 s (0.23 ns) resolution
        agree(label, xs, ref)
        if ref is SLS:
            mono_up(label, xs)

print(f"{'all faces agree' if fails == 0 else str(fails) + ' failures'}")
sys.exit(1 if fails else 0)
