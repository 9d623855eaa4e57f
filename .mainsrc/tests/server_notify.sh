#!/usr/bin/env bash
# server_notify.sh BUILD_DIR SOURCE_DIR - leapclockd's systemd
# notifications (Type=notify, WatchdogSec=): with NOTIFY_SOCKET pointing at
# a datagram socket this test listens on, READY=1 arrives once and only
# when the timeline page exists and the NTP socket answers; with
# WATCHDOG_USEC set WATCHDOG=1 keeps arriving, from the tick that updates
# the page; without WATCHDOG_USEC, or with WATCHDOG_PID naming another
# process, none is sent; an abstract socket name (@name) works as a path.
# Hermetic: the page in the test's temp dir, loopback ports, the leap file
# from tests/data. Needs python3 (skips without it).
set -u
B=$(cd "${1:?usage: server_notify.sh BUILD_DIR SOURCE_DIR}" && pwd)
S=$(cd "${2:?usage: server_notify.sh BUILD_DIR SOURCE_DIR}" && pwd)
D=$B/leapclockd
if [ ! -x "$D" ]; then
  echo "skip server_notify: leapclockd not built"; exit 77
fi
if ! command -v python3 >/dev/null; then
  echo "skip server_notify: no python3 (Debian package python3)"; exit 77
fi
. "$(dirname "$0")/progs/tmp_lib.sh"
lc_test_tmp server-notify
export LEAPCLOCK_TIMELINE=$T/none LEAPCLOCK_LEAPFILE=$S/tests/data/leap-seconds.list.tzdata2026f
P=$((20000 + RANDOM % 20000))

# The listener: starts the daemon itself (so that it knows its pid), reads
# the notifications for a bounded time, checks, stops it. Prints ok/FAIL.
cat >"$T/listen.py" <<'PY'
import os, socket, struct, subprocess, sys, time

daemon, tdir, port, leapfile = sys.argv[1:5]
port = int(port)
fail = 0
def ok(m): print("ok   " + m)
def bad(m):
    global fail
    fail = 1
    print("FAIL " + m)

def ntp_answers(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(0.5)
    try:
        s.sendto(b"\x23" + b"\0" * 47, ("127.0.0.1", port))
        data = s.recv(512)
        return len(data) >= 48 and (data[0] & 7) == 4
    except OSError:
        return False
    finally:
        s.close()

def run(name, addr, env_extra, seconds):
    """leapclockd with NOTIFY_SOCKET=addr; the messages seen in `seconds`
    after READY=1 (or 10 s without it), with the state at READY."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + addr[1:] if addr[0] == "@" else addr)
    page = os.path.join(tdir, name + ".timeline")
    env = dict(os.environ, NOTIFY_SOCKET=addr, **env_extra)
    if "WATCHDOG_PID" not in env_extra:
        env.pop("WATCHDOG_PID", None)
    log = open(os.path.join(tdir, name + ".log"), "w")
    p = subprocess.Popen([daemon, "-d", "--timeline", page, "--leapfile", leapfile,
                          "--listen", "127.0.0.1:%d=utc" % port, "--stats-file", "none"],
                         env=env, stderr=log)
    msgs, at_ready, ready_t = [], None, None
    end = time.monotonic() + 10
    try:
        while time.monotonic() < end and p.poll() is None:
            sock.settimeout(max(0.01, end - time.monotonic()))
            try:
                m = sock.recv(4096).decode()
            except socket.timeout:
                break
            now = time.monotonic()
            if "READY=1" in m.split("\n") and at_ready is None:
                # the state at the instant READY arrived, before anything else
                at_ready = (os.path.exists(page), ntp_answers(port))
                ready_t = now
                end = now + seconds
            msgs.append((now, m))
    finally:
        p.terminate()
        p.wait(5)
        sock.close()
        log.close()
    return p, msgs, at_ready, ready_t

# 1. a path socket, a watchdog of 400 ms (WATCHDOG=1 every 100..250 ms)
p, msgs, at_ready, t0 = run("a", os.path.join(tdir, "notify"),
                            {"WATCHDOG_USEC": "400000"}, 1.6)
readies = [m for _, m in msgs if "READY=1" in m.split("\n")]
if at_ready is None:
    bad("no READY=1 in 10 s (messages: %r; log: %s)" % (
        msgs, open(os.path.join(tdir, "a.log")).read()))
else:
    if len(readies) == 1: ok("READY=1 sent once")
    else: bad("READY=1 sent %d times" % len(readies))
    if at_ready[0]: ok("at READY=1 the timeline page exists")
    else: bad("READY=1 before the timeline page was published")
    if at_ready[1]: ok("at READY=1 the NTP socket answers")
    else: bad("READY=1 but the NTP socket did not answer")
    before = [m for t, m in msgs if t < t0 and "WATCHDOG=1" in m]
    wd = [t for t, m in msgs if t >= t0 and "WATCHDOG=1" in m]
    gaps = [b - a for a, b in zip(wd, wd[1:])]
    if len(wd) >= 5 and max(gaps) < 0.4:
        ok("WATCHDOG=1 keeps arriving: %d in 1.6 s after READY=1, the longest gap %.0f ms "
           "(WATCHDOG_USEC 400 ms)" % (len(wd), 1000 * max(gaps)))
    else:
        bad("WATCHDOG=1: %d in 1.6 s, gaps %s (want >= 5, each < 400 ms)" % (
            len(wd), ["%.3f" % g for g in gaps]))
    if len(wd) <= 17:
        ok("WATCHDOG=1 rate-limited (%d in 1.6 s)" % len(wd))
    else:
        bad("WATCHDOG=1 %d times in 1.6 s: not rate-limited" % len(wd))

# 2. an abstract socket, no WATCHDOG_USEC: READY=1 only
p, msgs, at_ready, t0 = run("b", "@lc-notify-%d-%d" % (os.getpid(), port), {}, 0.8)
if at_ready is not None and at_ready[0] and at_ready[1]:
    ok("abstract NOTIFY_SOCKET (@name): READY=1 after the page and the socket")
else:
    bad("abstract NOTIFY_SOCKET: READY=1 %s" % ("missing" if at_ready is None else "early"))
if not any("WATCHDOG=1" in m for _, m in msgs):
    ok("no WATCHDOG_USEC: no WATCHDOG=1")
else:
    bad("WATCHDOG=1 sent without WATCHDOG_USEC")

# 3. WATCHDOG_PID naming another process: not ours to feed
p, msgs, at_ready, t0 = run("c", os.path.join(tdir, "notify-c"),
                            {"WATCHDOG_USEC": "400000", "WATCHDOG_PID": "1"}, 0.8)
if at_ready is not None and not any("WATCHDOG=1" in m for _, m in msgs):
    ok("WATCHDOG_PID of another process: READY=1, no WATCHDOG=1")
else:
    bad("WATCHDOG_PID=1: ready %r, messages %r" % (at_ready, msgs))
sys.exit(fail)
PY
timeout 60 python3 "$T/listen.py" "$D" "$T" "$P" "$LEAPCLOCK_LEAPFILE"
rc=$?
[ $rc = 0 ] && echo "server_notify: all passed" || echo "server_notify: FAILED"
exit $rc
