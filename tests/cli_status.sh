#!/usr/bin/env bash
# cli_status.sh BUILD_DIR SOURCE_DIR - `leapclock status` says which
# timeline lc_default() reads: a leapclockd page (path, writer pid, alive
# or not, rehearsal or not, heartbeat age, writer starts, the writer's
# table and host following), or in-process and why (LEAPCLOCK_TIMELINE=none,
# a missing page, a page others could write), in the text and in --json.
# leapclockd runs on loopback only (port 0: any free port), publishing its
# page in a private folder; every wait is bounded.
set -u
B=$(cd "${1:?usage: cli_status.sh BUILD_DIR SOURCE_DIR}" && pwd)
S=$(cd "${2:?usage: cli_status.sh BUILD_DIR SOURCE_DIR}" && pwd)
D=$B/leapclockd
L=$B/leapclock
if [ ! -x "$D" ] || [ ! -x "$L" ]; then
	echo "skip cli_status: leapclockd or leapclock not built"; exit 77
fi
if ! command -v python3 >/dev/null; then
	echo "skip cli_status: python3 is needed to read the JSON"; exit 77
fi
T=$(mktemp -d /tmp/lc-cli-status.XXXXXX)
chmod 0700 "$T"
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
fails=0
# shellcheck source=progs/check_lib.sh
. "$S/tests/progs/check_lib.sh"

# up NAME PAGE ARGS...: start leapclockd publishing PAGE; wait (5 s at
# most) until `leapclock status` reads it from this daemon.
up() {
	local name=$1 page=$2
	shift 2
	"$D" -d --timeline "$page" --listen 127.0.0.1:0=utc --stats-file none \
		"$@" 2>"$T/$name.log" &
	pids+=($!)
	dpid=$!
	for _ in $(seq 50); do
		if LEAPCLOCK_TIMELINE=$page "$L" status --json 2>/dev/null |
			grep -q "\"writer_pid\":$dpid,\"writer_alive\":true"; then
			return 0
		fi
		sleep 0.1
	done
	echo "  leapclockd $name did not publish $page:"; sed 's/^/  | /' "$T/$name.log"
	return 1
}
down() { # down SIGNAL: stop the last daemon
	kill "-$1" $(pgrep -P "${pids[-1]}") "${pids[-1]}" 2>/dev/null
	wait "${pids[-1]}" 2>/dev/null
	unset 'pids[-1]'
}
# check NAME JSONFILE PYTHON...: the python body sees the object as d
check() {
	local name=$1 file=$2
	shift 2
	if python3 - "$file" "$@" 2>"$T/py.err" <<EOF
import json, sys
d = json.load(open(sys.argv[1]))
t = d["timeline"]
f = d["following"]
$(cat)
EOF
	then ok "$name"; else
		bad "$name"; sed 's/^/    /' "$T/py.err"; sed 's/^/    | /' "$file"
	fi
}

P=$T/page
if ! up first "$P"; then
	bad "leapclockd publishes a page"; exit 1
fi
ok "leapclockd -d --timeline $P --listen 127.0.0.1:0=utc publishes the page"
first=$dpid
# issue 27: the daemon's host line names the kernel state and status bits
# as status does (before: "kernel state 5 status 0x40")
for _ in $(seq 30); do grep -q "host clock: " "$T/first.log" && break; sleep 0.1; done
expect_line "leapclockd's host line: state and status by name" \
	'host clock: .* kernel state TIME_[A-Z]+ status ([A-Z]+(\|[A-Z]+)*|0) TAI' "$(cat "$T/first.log")"

# ---- the page, JSON
LEAPCLOCK_TIMELINE=$P "$L" status --json >"$T/s.json" 2>"$T/err"
expect_rc "status --json on the page" 0 $?
if python3 -m json.tool "$T/s.json" >/dev/null; then ok "status --json parses"; else
	bad "status --json parses"; cat "$T/s.json"; fi
check "page: source, path, pid, alive, not a rehearsal, fresh" "$T/s.json" "$P" "$first" <<'EOF'
assert t["source"] == "page", t
assert t["path"] == sys.argv[2], t
assert t["why"] is None, t
assert t["writer_pid"] == int(sys.argv[3]), t
assert t["writer_alive"] is True and t["rehearsal"] is False, t
assert t["writer_starts"] == 1, t
assert 0 <= t["heartbeat_age_s"] < 5, t
assert isinstance(t["last_update"], str) and t["last_update"].endswith("Z"), t
assert t["state_from"] == "page", t
assert t["counter"] == "system", t  # kernel mode: the host's MONOTONIC
EOF
check "page: the writer's table, smear none, host state a string" "$T/s.json" <<'EOF'
assert isinstance(t["table"]["source"], str) and t["table"]["source"], t
assert t["table"]["hash"] in ("none", "ok", "missing"), t
assert t["table"]["expires"] is None or t["table"]["expires"].endswith("Z"), t
assert t["table"]["note"] is None, t
assert t["smear"] is None, t
assert f["from"] == "page", f
assert f["state"] in ("not-followed", "agrees", "leap-off", "stepped", "smeared"), f
assert isinstance(f["steps"], int), f
# measured only when following (issue 27: 0 when not)
if f["state"] == "not-followed":
    assert f["offset_ns"] is None, f
else:
    assert isinstance(f["offset_ns"], int), f
# not published on the page: null, not a made-up 0
for k in ("steer_ppb", "leaps_behind", "kernel_rule", "kernel_tai",
          "kernel_state", "kernel_status", "kernel_status_bits"):
    assert f[k] is None, (k, f)
assert d["leapclock"]["tai"] == 37, d["leapclock"]
EOF

# ---- the page, text
out=$(LEAPCLOCK_TIMELINE=$P "$L" status 2>"$T/err")
expect_rc "status on the page" 0 $?
expect_line "text: timeline is the page" "^timeline +page $P\$" "$out"
expect_line "text: writer pid, alive, starts, heartbeat" \
	"^writer +pid $first \\(alive\\), 1 writer start, heartbeat [0-9.]+ s ago\$" "$out"
no_line "text: not a rehearsal" "rehearsal" "$out"
expect_line "text: the writer's table" "^leap table +.+, hash (none|ok|missing), expires .+ \\(the writer's\\)\$" "$out"
expect_line "text: smear" "^smear +none" "$out"
expect_line "text: host as the writer sees it" "^host +.*\\(as the writer sees it\\): host CLOCK_REALTIME [-+][0-9.]+ s" "$out"
expect_line "text: kernel facts not on the page" "kernel facts and leaps behind: not on the page" "$out"
expect_line "text: the kernel table still there" '^TAI-UTC +.* +37 s$' "$out"

# ---- LEAPCLOCK_TIMELINE=none: in-process, and why
LEAPCLOCK_TIMELINE=none "$L" status --json >"$T/n.json" 2>"$T/err"
expect_rc "status --json with LEAPCLOCK_TIMELINE=none" 0 $?
check "none: in-process, why, no page members, own host following" "$T/n.json" <<'EOF'
assert t["source"] == "in-process", t
assert t["path"] is None, t
assert t["why"] == "LEAPCLOCK_TIMELINE=none", t
for k in ("writer_pid", "writer_alive", "rehearsal", "heartbeat_age_s",
          "writer_starts", "last_update"):
    assert t[k] is None, (k, t)
assert t["state_from"] == "process", t
assert t["table"]["source"], t
assert f["from"] == "process", f
assert f["state"] in ("not-followed", "agrees", "leap-off", "stepped", "smeared"), f
assert isinstance(f["leaps_behind"], int), f
# offset and steering are measured only when following
want = type(None) if f["state"] == "not-followed" else int
assert isinstance(f["steer_ppb"], want) and isinstance(f["offset_ns"], want), f
assert isinstance(f["kernel_rule"], bool), f
assert isinstance(f["kernel_tai"], int) and isinstance(f["kernel_status"], int), f
assert f["kernel_state"].startswith("TIME_"), f
assert isinstance(f["kernel_status_bits"], list), f
EOF
out=$(LEAPCLOCK_TIMELINE=none "$L" status 2>"$T/err")
expect_line "text none: in-process and why" "^timeline +in-process: LEAPCLOCK_TIMELINE=none\$" "$out"
expect_line "text none: kernel rule/threshold, kernel TAI, leaps behind" \
	"^ +(kernel|threshold) rule; kernel TAI -?[0-9]+ s, TIME_[A-Z]+, status .*; -?[0-9]+ leaps? applied here the host has not\$" "$out"

# ---- a missing page; a page others could write
LEAPCLOCK_TIMELINE=$T/nosuch "$L" status --json >"$T/m.json" 2>"$T/err"
expect_rc "status --json, a missing page" 0 $?
check "missing page: in-process, the path tried and why" "$T/m.json" "$T/nosuch" <<'EOF'
assert t["source"] == "in-process", t
assert t["path"] == sys.argv[2], t
assert "No such file" in t["why"], t
EOF
mkdir -p "$T/ow" && chmod 0777 "$T/ow" && cp "$P" "$T/ow/page"
LEAPCLOCK_TIMELINE=$T/ow/page "$L" status --json >"$T/o.json" 2>"$T/err"
check "a page in a world-writable folder: refused, in-process, why" "$T/o.json" <<'EOF'
assert t["source"] == "in-process", t
assert "writable by group or others" in t["why"], t
EOF
expect_line "world-writable folder: one warning on stderr" "not reading the timeline: .*writable" "$(cat "$T/err")"

# ---- the writer killed: its page is continuity for the readers already
# on it, not a source for a new one (issue 28 item 6): status, a new
# reader, runs in-process and says why
down KILL
LEAPCLOCK_TIMELINE=$P "$L" status --json >"$T/k.json" 2>"$T/err"
check "writer killed: a new reader runs in-process, saying its writer is gone" "$T/k.json" "$P" <<'EOF'
assert t["source"] == "in-process", t
assert t["path"] == sys.argv[2], t
assert "its writer is gone" in t["why"], t
assert t["state_from"] == "process" and f["from"] == "process", (t, f)
EOF
expect_line "  in one warning on stderr" "not reading the timeline: .*its writer is gone" "$(cat "$T/err")"
out=$(LEAPCLOCK_TIMELINE=$P "$L" status 2>"$T/err")
expect_line "text: in-process, writer gone" "^timeline +in-process.*its writer is gone" "$out"

# ---- a restart continues the page: two writer starts
if up second "$P"; then
	LEAPCLOCK_TIMELINE=$P "$L" status --json >"$T/r.json" 2>"$T/err"
	check "restarted writer: same page, new pid, 2 writer starts" "$T/r.json" "$dpid" <<'EOF'
assert t["source"] == "page", t
assert t["writer_pid"] == int(sys.argv[2]) and t["writer_alive"] is True, t
assert t["writer_starts"] == 2, t
EOF
	grep -q "continued from its previous writer" "$T/second.log" &&
		ok "leapclockd logs that it continued the page" ||
		bad "no 'continued' in the log: $(cat "$T/second.log")"
	down TERM
	LEAPCLOCK_TIMELINE=$P "$L" status --json >"$T/t.json" 2>"$T/err"
	check "writer stopped cleanly: a new reader runs in-process" "$T/t.json" <<'EOF'
assert t["source"] == "in-process", t
assert "its writer is gone" in t["why"], t
EOF
else
	bad "leapclockd restarts on its page"
fi

# ---- a rehearsal page
R=$T/rehearsal
if up rehearsal "$R" --pretend 2016-12-31T23:59:00Z; then
	LEAPCLOCK_TIMELINE=$R "$L" status --json >"$T/p.json" 2>"$T/err"
	check "rehearsal page: read where pointed at, rehearsal true" "$T/p.json" <<'EOF'
assert t["source"] == "page" and t["rehearsal"] is True, t
EOF
	out=$(LEAPCLOCK_TIMELINE=$R "$L" status 2>"$T/err")
	expect_line "text: a rehearsal" "heartbeat .* ago, a rehearsal \\(--pretend\\)\$" "$out"
	# issue 27: no offset beside "not following"; a step, steps; what the
	# page does not carry is unknown, not TIME_OK/0 us (before: "+0.000000
	# s from leapclock's", "0 host steps", "tick ... 0 us")
	expect_line "text: not following, no offset shown" '^host +not following the host \(as the writer sees it\), 0 host steps followed$' "$out"
	expect_line "text: tick unknown on a page" '^tick +[0-9]+ us +unknown \(not on the page\)$' "$out"
	expect_line "text: maxerror unknown on a page" '^maxerror +[0-9]+ us +unknown \(not on the page\)$' "$out"
	check "json: what the page lacks is null" "$T/p.json" <<'EOF'
l = d["leapclock"]
assert l["maxerror_us"] is None and l["tick_us"] is None and l["freq"] is None, l
assert isinstance(l["tai"], int) and l["state"].startswith("TIME_"), l
# not following: no offset measured, null (issue 27: it printed 0)
assert f["state"] == "not-followed", f
assert f["offset_ns"] is None and f["steer_ppb"] is None, f
EOF
	down TERM
else
	bad "leapclockd --pretend publishes a rehearsal page"
fi

# ---- 23:59:60 in `now` (issue 27): a rehearsal that reads 23:59:60 two
# host seconds from now; `now` reads it 2.3 s from now, 0.3 s into the leap
# second. Before: utc printed 1483228799.1300000000 (reads as .13 s).
L60=$T/leap60
at=$(date -u -d "@$(($(date +%s) + 2))" +%Y-%m-%dT%H:%M:%SZ)
at_s=$(date -u -d "$at" +%s)
if up leap60 "$L60" --pretend "2016-12-31T23:59:60Z@$at"; then
	while [ "$(date +%s%N)" -lt "$((at_s * 1000000000 + 200000000))" ]; do sleep 0.02; done
	out=$(LEAPCLOCK_TIMELINE=$L60 "$L" now 2>"$T/err")
	LEAPCLOCK_TIMELINE=$L60 "$L" now --json >"$T/n60.json" 2>>"$T/err"
	expect_line "now: 23:59:60 as SEC+1.FRAC beside its ISO :60" \
		'^utc +1483228799\+1\.[0-9]{9}  2016-12-31T23:59:60\.[0-9]{9}Z$' "$out"
	no_line "now: no SEC.1FRAC (reads as a fraction of SEC)" \
		'^utc +1483228799\.1[0-9]{9} ' "$out"
	if python3 - "$T/n60.json" 2>"$T/py.err" <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["leap_second"] is True, d
assert d["utc"]["sec"] == 1483228799 and 10**9 <= d["utc"]["nsec"] < 2 * 10**9, d["utc"]
assert d["utc_iso"].startswith("2016-12-31T23:59:60."), d["utc_iso"]
assert d["realtime"]["sec"] == 1483228799 and d["realtime"]["nsec"] < 10**9, d
EOF2
	then ok "now --json: leap_second true, utc_iso :60, utc sec/nsec as before"; else
		bad "now --json in 23:59:60"; sed 's/^/    /' "$T/py.err"; sed 's/^/    | /' "$T/n60.json"; fi
	down TERM
else
	bad "leapclockd --pretend 23:59:60@AT publishes a page"
fi

# ---- the table note (issue 27; before: the page cut it at 159 bytes,
# mid-word, mid-hash): leapclockd makes it fit the page whole, a long folder
# shortened in its middle with "...", the file's name and the message kept;
# a message too long even beside the name alone is cut after a word, " ...".
# A long path, SIGHUP after a bad line, then after a bad hash.
N=$T/notepage
ND=$T/a-rather-long-folder-name-for-the-leap-table-so-that-the-note-runs-past-the-page/x
mkdir -p "$ND"
cp "$S/tests/data/leap-seconds.list.tzdata2026f" "$ND/leap-seconds.list"
# read_note PATTERN: the page's note in status (into $note) and --json
# (into $T/note.json) once it matches PATTERN
read_note() {
	local i got=0
	note=
	for _ in $(seq 50); do
		LEAPCLOCK_TIMELINE=$N "$L" status >"$T/note.out" 2>/dev/null
		grep -q "^table note .*$1" "$T/note.out" && break; sleep 0.1
	done
	note=$(sed -n 's/^table note  *//p' "$T/note.out")
	# right after the text read, a --json read sometimes (2 of 3 full runs
	# on a loaded machine, not reproduced alone) found the page's socket
	# refusing and ran in-process; a page read failing so is left open in
	# the closing note, not hidden: the retry is counted and printed (CI's
	# ASan run saw the refusal last 20 tries: up to 60 now, 0.2 s apart,
	# and what the page's writer and socket were doing if none succeeds,
	# for the open defect)
	for i in $(seq 60); do
		LEAPCLOCK_TIMELINE=$N "$L" status --json >"$T/note.json" 2>/dev/null
		grep -q "\"note\":\"[^\"]*$1" "$T/note.json" && { got=1; break; }; sleep 0.2
	done
	[ "$i" -gt 1 ] && echo "note: status --json read the page at try $i (found: $got)"
	if [ "$got" = 0 ]; then
		echo "  writer $dpid: $(kill -0 "$dpid" 2>/dev/null && echo alive || echo gone), server $(pgrep -P "$dpid" | tr '\n' ' ')"
		ls -l "$T" | grep notepage | sed 's/^/  | /'
		command -v ss >/dev/null && ss -xl 2>/dev/null | grep notepage | sed 's/^/  | /'
		tail -4 "$T/note.log" | sed 's/^/  | /'
	fi
}
if up note "$N" --leapfile "$ND/leap-seconds.list"; then
	# a bad line: a short message beside the long path
	echo "3692217600 garbage" >>"$ND/leap-seconds.list"
	kill -HUP "$dpid"
	read_note "not a decimal number"
	check "a bad line: the note fits the page, the message whole, the folder shortened in its middle" \
		"$T/note.json" "$note" "$T/note.log" "$ND/leap-seconds.list" <<'EOF'
import re
full, path = open(sys.argv[3]).read(), sys.argv[4]
m = re.search(re.escape(path) + r"(:[0-9]+: [^;\n]*not a decimal number); keeping", full)
assert m, full
msg = m.group(1)
for n in (t["table"]["note"], sys.argv[2]):
    assert len(n.encode()) <= 158, (len(n), n)
    assert n.endswith("/leap-seconds.list" + msg), (n, msg)
    head = n[: n.index("...")]
    assert len(head) > 20 and path.startswith(head), (n, path)
EOF
	# a bad hash: the message alone (138 bytes) barely fits beside the name
	cp "$S/tests/data/leap-seconds.list.tzdata2026f" "$ND/leap-seconds.list"
	sed -i 's/^#h.*/#h 0 0 0 0 0/' "$ND/leap-seconds.list"
	kill -HUP "$dpid"
	read_note "hash mismatch"
	check "a bad hash: the folder gone, the message cut after a whole word, ' ...'" \
		"$T/note.json" "$note" "$T/note.log" <<'EOF'
full = open(sys.argv[3]).read()
for n in (t["table"]["note"], sys.argv[2]):
    assert len(n.encode()) <= 158, (len(n), n)
    assert n.startswith(".../leap-seconds.list:") and "hash mismatch" in n, n
    assert n.endswith(" ..."), n
    head = n[len(".../leap-seconds.list"):-4]
    i = full.find(head)
    assert i >= 0 and full[i + len(head)] == " ", (n, full)
EOF
	down TERM
else
	bad "leapclockd publishes the note page"
fi

# ---- the live view (issue 27): status --watch / top
W=$T/watchpage
if up watch "$W" --stats-file "$T/stats"; then
	for _ in $(seq 50); do grep -q '^listen ' "$T/stats" 2>/dev/null && break; sleep 0.1; done
	addr=$(awk '/^listen /{print $2; exit}' "$T/stats")
	LEAPCLOCK_TIMELINE=$W timeout 20 "$L" status --watch --count 4 --interval 0.8 \
		--stats-file "$T/stats" >"$T/w.out" 2>"$T/w.err" &
	wpid=$!
	sleep 0.2
	# issue 27: a host name (before: "expected ADDR[:PORT]", exit 2)
	"$L" server-stats --query "localhost:${addr##*:}" --count 2 --interval 0.05 >"$T/q.out" 2>&1
	qrc=$?
	"$L" server-stats --query "127.0.0.1:${addr##*:}" --count 2 --interval 0.05 >/dev/null 2>&1
	wait "$wpid"
	if [ "$qrc" -eq 0 ] && grep -q "stratum" "$T/q.out"; then
		ok "server-stats --query localhost:PORT: a host name, answered"
	else bad "server-stats --query localhost:PORT: exit $qrc: $(cat "$T/q.out")"; fi
	"$L" server-stats --query "no-such-host.invalid" >/dev/null 2>"$T/q.err"
	qrc=$?
	if [ "$qrc" -eq 3 ] && grep -q "^leapclock server-stats: --query 'no-such-host.invalid': " "$T/q.err"; then
		ok "server-stats --query NAME that does not resolve: said, exit 3"
	else bad "server-stats --query no-such-host.invalid: exit $qrc: $(cat "$T/q.err")"; fi
	expect_rc "status --watch --count 4, not a terminal" 0 $?
	out=$(cat "$T/w.out")
	n=$(grep -c '^leapclock status --watch ' "$T/w.out")
	[ "$n" -eq 4 ] && ok "--count 4: four blocks" || bad "--count 4: $n blocks"
	if grep -q $'\033' "$T/w.out"; then bad "not a terminal: no escape sequences"; else ok "not a terminal: no escape sequences"; fi
	expect_line "watch: the page" "^timeline +page $W\$" "$out"
	expect_line "watch: the smear offset, its sign named" '^smear now +[-+]0\.[0-9]{6} s \(smear offset = UTC_SLS - UTC\)$' "$out"
	expect_line "watch: the served socket from the stats file" "^ +$addr +utc +[0-9]+ " "$out"
	expect_line "watch: a request rate once requests came" "^ +$addr +utc +4 +[0-9.]+ +[0-9.]+ " "$out"
	LEAPCLOCK_TIMELINE=$W timeout 10 "$L" top --count 1 --stats-file none >"$T/t.out" 2>&1
	expect_rc "top --count 1" 0 $?
	expect_line "top is status --watch" '^leapclock status --watch .*refresh 1 of 1' "$(cat "$T/t.out")"
	# in a terminal: python3's pty; SIGINT ends it, the cursor restored
	if LEAPCLOCK_TIMELINE=$W python3 - "$L" "$T/stats" >"$T/pty.out" 2>&1 <<'EOF2'
import os, pty, signal, sys, time, select
lc, stats = sys.argv[1], sys.argv[2]
def run(args, stop_after=None):
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(lc, [lc] + args)
    out, t0, sent = b"", time.time(), False
    while time.time() - t0 < 15:
        if stop_after is not None and not sent and time.time() - t0 > stop_after:
            os.kill(pid, signal.SIGINT); sent = True
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                b = os.read(fd, 65536)
            except OSError:
                break
            if not b:
                break
            out += b
    _, st = os.waitpid(pid, 0)
    return out, st
out, st = run(["status", "--watch", "--count", "2", "--interval", "0.2", "--stats-file", stats])
assert os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0, (st, out[-300:])
assert out.count(b"\033[H\033[2J") == 2, out
assert out.startswith(b"\033[?25l") and out.rstrip().endswith(b"\033[?25h"), out[-40:]
assert out.count(b"leapclock status --watch") == 2 and b"served" in out, out
print("ok   pty: two refreshes, each home+clear, the cursor hidden then restored")
out, st = run(["top", "--interval", "0.2", "--stats-file", stats], stop_after=1.0)
assert os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0, (st, out[-300:])
assert out.rstrip().endswith(b"\033[?25h"), out[-40:]
assert out.count(b"\033[H\033[2J") >= 2, out
print("ok   pty: SIGINT ends top (exit 0), the cursor restored")
EOF2
	then cat "$T/pty.out"; else bad "in a pty:"; sed 's/^/    /' "$T/pty.out"; fi
	down TERM
else
	bad "leapclockd publishes the watch page"
fi
"$L" status --count 2 >/dev/null 2>&1
expect_rc "--count without --watch" 2 $?
"$L" status --watch --json >/dev/null 2>&1
expect_rc "--watch with --json" 2 $?

# ---- a declared host mode's page: on CLOCK_MONOTONIC_RAW, and said
if up raw "$T/raw.page" --host-leap slew; then
	LEAPCLOCK_TIMELINE=$T/raw.page "$L" status >"$T/raw.out" 2>&1
	LEAPCLOCK_TIMELINE=$T/raw.page "$L" status --json >"$T/raw.json" 2>&1
	if grep -q '^counter      raw (CLOCK_MONOTONIC_RAW' "$T/raw.out" &&
		grep -q '"counter":"raw"' "$T/raw.json"; then
		ok "--host-leap slew: the page's counter is raw (status and --json)"
	else
		bad "--host-leap slew: the counter is not shown raw"; sed 's/^/    | /' "$T/raw.out"
	fi
	down TERM
else
	bad "leapclockd --host-leap slew publishes a page"
fi

# ---- usage
"$L" status --nosuch >/dev/null 2>&1
expect_rc "status with an unknown argument" 2 $?

[ "$fails" -eq 0 ] && echo "cli_status: all checks passed" || echo "cli_status: $fails check(s) failed"
[ "$fails" -eq 0 ]
