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
	kill "-$1" "${pids[-1]}" 2>/dev/null
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
EOF
check "page: the writer's table, smear none, host state a string" "$T/s.json" <<'EOF'
assert isinstance(t["table"]["source"], str) and t["table"]["source"], t
assert t["table"]["hash"] in ("none", "ok", "missing"), t
assert t["table"]["expires"] is None or t["table"]["expires"].endswith("Z"), t
assert t["table"]["note"] is None, t
assert t["smear"] is None, t
assert f["from"] == "page", f
assert f["state"] in ("not-followed", "agrees", "leap-off", "stepped", "smeared"), f
assert isinstance(f["offset_ns"], int) and isinstance(f["steps"], int), f
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
assert isinstance(f["steer_ppb"], int) and isinstance(f["leaps_behind"], int), f
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
	down TERM
else
	bad "leapclockd --pretend publishes a rehearsal page"
fi

# ---- usage
"$L" status --nosuch >/dev/null 2>&1
expect_rc "status with an unknown argument" 2 $?

[ "$fails" -eq 0 ] && echo "cli_status: all checks passed" || echo "cli_status: $fails check(s) failed"
[ "$fails" -eq 0 ]
