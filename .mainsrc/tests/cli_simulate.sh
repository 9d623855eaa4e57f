#!/bin/bash
# cli_simulate.sh BUILD_DIR SOURCE_DIR - `leapclock simulate` as `make run`
# runs it, its --json and --trace, option errors, and that
# `leapclock kernel-test` refuses to run (it is never run for real here).
set -u
B=${1:?build dir}
LC="$B/leapclock"
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ -x "$LC" ] || { echo "skip: $LC not built"; exit 77; }

# ---- make run: no arguments, the table, under 5 s --------------------------
start=$(date +%s%N)
"$LC" simulate >"$tmp/table" 2>"$tmp/err"
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ $rc -eq 0 ] && ok "simulate exits 0" || bad "simulate exit $rc: $(cat "$tmp/err")"
[ "$ms" -lt 5000 ] && ok "simulate took $ms ms (< 5 s)" || bad "simulate took $ms ms"
for w in "scenario reproducer" "early" "stale" "back" "TAI err" "smear" "applied"; do
	grep -q "$w" "$tmp/table" && ok "heading explains '$w'" || bad "heading lacks '$w'"
done
# every model at HZ=1000 and with NOHZ
for m in legacy linux-4.2 force-tick slew-all exact smear:google; do
	for t in 'HZ=1000 ' 'HZ=1000 NOHZ'; do
		n=$(grep -c "^$m  *$t" "$tmp/table")
		[ "$n" -ge 1 ] && ok "row $m $t" || bad "no row $m $t"
	done
done
# columns: model tick [NOHZ] early max late stale back tai smear applied
col() { # model nohz(0/1) field-index-after-tick
	awk -v m="$1" -v nz="$2" -v f="$3" '$1 == m {
		off = ($3 == "NOHZ") ? 1 : 0
		if (off == nz) print $(2 + off + f) }' "$tmp/table"
}
for nz in 0 1; do
	e=$(col legacy $nz 1); [ "${e:-0}" -ge 1 ] && ok "legacy early fires (nohz=$nz): $e" || bad "legacy early '$e' nohz=$nz"
	e=$(col linux-4.2 $nz 1); [ "$e" = 0 ] && ok "linux-4.2 no early fire (nohz=$nz)" || bad "linux-4.2 early '$e'"
	s=$(col linux-4.2 $nz 4); [ "$s" != "0.000" ] && ok "linux-4.2 stale reads $s ms (nohz=$nz)" || bad "linux-4.2 stale '$s'"
	t=$(col slew-all $nz 6); [ "$t" = "1000.000" ] && ok "slew-all TAI off by 1 s (nohz=$nz)" || bad "slew-all TAI err '$t'"
	for m in exact smear:google; do
		e=$(col $m $nz 1); s=$(col $m $nz 4); t=$(col $m $nz 6)
		[ "$e/$s/$t" = "0/0.000/0.000" ] && ok "$m clean (nohz=$nz)" || bad "$m early/stale/tai '$e/$s/$t'"
	done
done

# ---- --json -------------------------------------------------------------------
if command -v python3 >/dev/null; then
	"$LC" simulate --json --scenario delete --hz 250 --model legacy,exact --model smear:minute >"$tmp/json"
	if python3 - "$tmp/json" <<'EOF'
import json, sys
rows = json.load(open(sys.argv[1]))
assert [r["model"] for r in rows] == ["legacy", "exact", "smear:minute"], rows
keys = {"model", "scenario", "hz", "nohz", "early_fires", "max_early_ns",
        "stale_read_ns", "backsteps", "tai_continuous", "max_tai_error_ns",
        "max_smear_rate_ppm"}
clocks = {"monotonic_raw", "monotonic", "boottime", "tai", "realtime",
          "utc", "utc_sls"}
for r in rows:
    assert keys <= set(r), set(r) ^ keys
    assert set(r["backsteps"]) == clocks
    assert r["scenario"] == "delete" and r["hz"] == 250 and r["nohz"] is False
leg, ex, sm = rows
assert leg["stale_read_ns"] > 0 and leg["early_fires"] == 0
assert leg["backsteps"]["utc_sls"] is None
assert ex["stale_read_ns"] == 0 and ex["early_fires"] == 0
assert ex["tai_continuous"] is True and ex["max_tai_error_ns"] == 0
assert sm["max_smear_rate_ppm"] > 0 and sm["backsteps"]["realtime"] == 0
EOF
	then ok "--json: fields, models, deletion outcomes"; else bad "--json"; fi
	# a rate computed as -0.0001 ppm used to print as -0.000
	if grep -Eq -- '-0(\.0+)?([,} ]|$)' "$tmp/json"; then
		bad "--json: a negative zero: $(grep -Eo -- '"[a-z_]+": ?-0(\.0+)?([,} ]|$)' "$tmp/json" | head -3)"
	else ok "--json: no negative zero"; fi
else
	echo "skip --json: needs Debian package python3"
fi

# ---- --trace: the 2015 report's shape ------------------------------------------
"$LC" simulate --model legacy --trace >"$tmp/trace"
plus=$(grep -n -m1 '^+++$' "$tmp/trace" | cut -d: -f1)
timer=$(grep -n -m1 '^timer' "$tmp/trace" | cut -d: -f1)
minus=$(grep -n -m1 '^---$' "$tmp/trace" | cut -d: -f1)
if [ -n "$plus" ] && [ -n "$timer" ] && [ -n "$minus" ] &&
   [ "$plus" -lt "$timer" ] && [ "$timer" -lt "$minus" ]; then
	ok "trace: +++ then the timer then ---"
else
	bad "trace order +++=$plus timer=$timer ---=$minus"
fi
sed -n "$((plus + 1))p" "$tmp/trace" | grep -q '^00:00:00\.000000 \.' && ok "trace: 00:00:00.000000 with repeats after +++" || bad "trace after +++"
sed -n "$((minus + 1))p" "$tmp/trace" | grep -q '^23:59:59\.000' && ok "trace: back to 23:59:59.000x after ---" || bad "trace after ---"
sed -n "$((plus + 1)),$((minus - 1))p" "$tmp/trace" | grep -v '^timer' | grep -v '^\.\.\.$' | grep -qv '^00:00:00\.' && bad "trace: a reading other than 00:00:00.x in the stale window" || ok "trace: only 00:00:00.x in the stale window"

# ---- errors ---------------------------------------------------------------------
"$LC" simulate --model linux-2.6 >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "unknown model" "$tmp/err" && ok "unknown model: exit 2" || bad "unknown model rc=$rc"
"$LC" simulate --hz 0 >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "--hz 0: exit 2" || bad "--hz 0 rc=$rc"
"$LC" simulate --leap 2015-06-30T12:00:00Z >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "--leap at noon: exit 2" || bad "--leap noon rc=$rc"
"$LC" simulate --leap 2016-12-31T23:59:60Z --model exact --hz 100 >/dev/null 2>&1; rc=$?
[ $rc -eq 0 ] && ok "--leap 2016-12-31T23:59:60Z" || bad "--leap 23:59:60 rc=$rc"
# Leap days the simulator cannot represent: refused with the range, exit 2
# (3000-01-01 used to report an early timer and a 37 s TAI error on exact,
# 2116-02-29 timers 6000 ms late on every model).
for d in 3000-01-01 2116-02-29 1971-12-31 "@32503680000" 2116-03-01T00:00:00Z; do
	arg=${d#@}
	out=$("$LC" simulate --leap "$arg" --model exact --hz 100 2>"$tmp/err"); rc=$?
	if [ $rc -eq 2 ] && grep -q "^leapclock simulate: --leap $arg: .*outside the supported range, 1972-01-01 to 2115-12-31" "$tmp/err" && [ -z "$out" ]; then
		ok "--leap $arg: refused with the range"
	else bad "--leap $arg: rc=$rc $(cat "$tmp/err") $out"; fi
done
# Numeric options out of range (issue 16): the message names the option,
# the value and the range; nothing is simulated (before, "<argument>: a
# latency, nohz maximum, timer or reader count is out of range" after the
# heading)
for c in "--readers 1000000|1..64" "--readers 0|1..64" "--timers 10001|0..10000" \
         "--read-cost 0|1..1000000" "--timer-latency 100000001|0..100000000" \
         "--nohz-max 5|1000000..1000000000000"; do
	args=${c%|*} range=${c#*|}
	# shellcheck disable=SC2086
	out=$("$LC" simulate $args --scenario timers --model exact 2>"$tmp/err"); rc=$?
	if [ $rc -eq 2 ] && [ -z "$out" ] && grep -qF "leapclock simulate: ${args% *}: '${args#* }' is not in $range" "$tmp/err" &&
	   ! grep -q '<' "$tmp/err"; then
		ok "simulate $args: refused naming the option and $range, no output"
	else bad "simulate $args: rc=$rc err=$(cat "$tmp/err") out=$(head -c 200 <<<"$out")"; fi
done
"$LC" simulate --leap 2015-02-31 --model exact --hz 100 >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "--leap 2015-02-31 (no such day): exit 2" || bad "--leap 2015-02-31 rc=$rc"
for d in 1972-01-01 2115-12-31; do
	command -v python3 >/dev/null || { echo "skip --leap $d: needs Debian package python3"; continue; }
	out=$("$LC" simulate --leap $d --model exact,legacy --hz 1000 --json 2>&1); rc=$?
	if [ $rc -eq 0 ] && python3 -c '
import json, sys
r = {x["model"]: x for x in json.loads(sys.stdin.read())}
e = r["exact"]
assert e["fired"] == 1 and e["early_fires"] == 0, e
assert e["max_late_ns"] < 10000 and e["max_tai_error_ns"] == 0, e
assert r["legacy"]["early_fires"] == 1, r["legacy"]
' <<<"$out"; then ok "--leap $d: exact is exact, legacy fires early"; else bad "--leap $d: rc=$rc $out"; fi
done
"$LC" simulate --model smear:nonesuch >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q nonesuch "$tmp/err" && ok "unknown smear preset: exit 2" || bad "bad preset rc=$rc"

# ---- kernel-test refuses (it is NEVER run for real here) ---------------------------
# Without the flag it refuses whatever the capabilities.
"$LC" kernel-test >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "refusing to run" "$tmp/err" && ok "kernel-test without the flag: refuses, exit 2" || bad "kernel-test rc=$rc"
# With the flag only where CAP_SYS_TIME certainly cannot be had: under
# setpriv without it in the bounding set (root could otherwise regain it on
# exec), or as a non-root user that holds it in no set.
nocap=()
if command -v setpriv >/dev/null &&
   setpriv --bounding-set=-sys_time --inh-caps=-sys_time -- true 2>/dev/null; then
	nocap=(setpriv --bounding-set=-sys_time --inh-caps=-sys_time --)
fi
safe=$("${nocap[@]}" bash -c '
	bit() { [ $(( (16#$(awk -v k="$1:" "\$1 == k {print \$2}" /proc/self/status) >> 25) & 1 )) -eq 1 ]; }
	if ! bit CapBnd; then echo yes
	elif [ "$(id -u)" -ne 0 ] && ! bit CapEff && ! bit CapPrm && ! bit CapAmb; then echo yes
	else echo no; fi')
if [ "$safe" = yes ]; then
	"${nocap[@]}" "$LC" kernel_test --i-understand-this-sets-the-clock >/dev/null 2>"$tmp/err"; rc=$?
	[ $rc -eq 2 ] && grep -q "CAP_SYS_TIME" "$tmp/err" && ok "kernel-test without CAP_SYS_TIME: refuses, exit 2" || bad "kernel-test no-cap rc=$rc"
else
	echo "skip kernel-test --i-understand...: CAP_SYS_TIME could not be ruled out"
fi

exit $fail
