#!/bin/bash
# cli_table.sh BUILD_DIR SOURCE_DIR - `leapclock table` end to end on the
# Debian data files. Expected values come from the files' own text: 2025b's
# list expires "28 June 2026" (#@ 3991593600 - 2208988800 = 1782604800),
# 2026f's "28 June 2027"; the last leap is 2016-12-31T23:59:60Z with TAI-UTC
# 37 s after it; there are 27 leaps. Expiry is judged with --now so that the
# test does not change its answer as the calendar moves on.
set -u
build=${1:?usage: cli_table.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: cli_table.sh BUILD_DIR SOURCE_DIR}
lc=$build/leapclock
data=$src/tests/data
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

source "$src/tests/progs/check_lib.sh"

if [ ! -x "$lc" ]; then
	echo "FAIL leapclock binary not built at $lc"
	exit 1
fi

now=2026-12-03
warn25='warning: leap table .*leap-seconds\.list\.tzdata2025b expired on 2026-06-28; leap seconds announced since then are unknown to it'

# ---- 2025b: expired, said on stderr; the table is still printed, exit 0
out=$("$lc" table --file "$data/leap-seconds.list.tzdata2025b" --now $now 2>"$tmp/err")
rc=$?
err=$(cat "$tmp/err")
expect_rc "2025b list shown although expired" 0 $rc
expect_line "2025b expired warning on stderr" "$warn25" "$err"
no_line "the warning is not on stdout" 'warning' "$out"
expect_line "source is the file" "^source: +$data/leap-seconds\.list\.tzdata2025b$" "$out"
expect_line "format IERS" '^format: +leap-seconds\.list \(IERS/NIST\)' "$out"
expect_line "updated 2025-07-07" '^updated: +2025-07-07T00:00:00Z' "$out"
expect_line "expires 2026-06-28, marked expired" '^expires: +2026-06-28T00:00:00Z \(EXPIRED\)' "$out"
expect_line "hash ok" '^hash: +ok' "$out"
expect_line "27 leaps" '^leaps: +27 ' "$out"
expect_line "first leap 1972-06-30T23:59:60Z -> 11 s" '^1972-06-30T23:59:60Z +\+1 inserted +11 s$' "$out"
expect_line "last leap 2016-12-31T23:59:60Z -> 37 s" '^2016-12-31T23:59:60Z +\+1 inserted +37 s$' "$out"
n=$(grep -cE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T23:59:60Z +\+1 inserted' <<<"$out")
[ "$n" -eq 27 ] && ok "27 leap rows" || bad "27 leap rows: got $n"

# The day before expiry: no warning.
"$lc" table --file "$data/leapseconds.tzdata2025b" --now 2026-06-27T23:59:59Z >/dev/null 2>"$tmp/err"
no_line "no warning the second before expiry" 'warning' "$(cat "$tmp/err")"
"$lc" table --file "$data/leapseconds.tzdata2025b" --now @1782604800 >/dev/null 2>"$tmp/err"
expect_line "warning at the expiry instant (tzdata file)" 'expired on 2026-06-28' "$(cat "$tmp/err")"

# ---- 2026f: not expired on 2026-12-03; both formats print the same leaps
out_i=$("$lc" table --file "$data/leap-seconds.list.tzdata2026f" --now $now 2>"$tmp/err")
expect_rc "2026f list" 0 $?
no_line "2026f: no warning" 'warning' "$(cat "$tmp/err")"
expect_line "2026f expires 2027-06-28" '^expires: +2027-06-28T00:00:00Z$' "$out_i"
out_t=$("$lc" table --file "$data/leapseconds.tzdata2026f" --now $now 2>/dev/null)
expect_line "tzdata: no hash in the format" '^hash: +none' "$out_t"
if diff <(grep -E '^[0-9]{4}-' <<<"$out_i") <(grep -E '^[0-9]{4}-' <<<"$out_t") >/dev/null; then
	ok "both 2026f formats list the same leaps"
else
	bad "both 2026f formats list the same leaps"
fi

# ---- --verify
out=$("$lc" table --verify --file "$data/leap-seconds.list.tzdata2026f" 2>&1)
expect_rc "--verify on a good list" 0 $?
expect_line "--verify says ok" 'hash ok' "$out"
"$lc" table --verify --file "$data/leapseconds.tzdata2026f" >/dev/null 2>&1
expect_rc "--verify on tzdata (no hash)" 1 $?
# a tampered copy: TAI-UTC of 2017 changed from 37 to 38
sed 's/^3692217600\([[:space:]]*\)37/3692217600\138/' "$data/leap-seconds.list.tzdata2026f" >"$tmp/tampered.list"
if cmp -s "$tmp/tampered.list" "$data/leap-seconds.list.tzdata2026f"; then
	bad "tampering the copy changed nothing"
fi
out=$("$lc" table --verify --file "$tmp/tampered.list" 2>&1)
expect_rc "--verify on a tampered copy" 1 $?
expect_line "--verify names the #h line and both hashes" \
	"tampered\.list:120: hash mismatch: #h says a9bad145 84c31c70 758402aa b37bfd54 5923836a, the data hashes to [0-9a-f]{8}( [0-9a-f]{8}){4}" "$out"
out=$("$lc" table --file "$tmp/tampered.list" 2>&1)
expect_rc "the tampered copy without --verify is a bad file" 2 $?
expect_line "bad file: file:line: problem" 'tampered\.list:120: hash mismatch' "$out"
# hash missing: the #h line dropped is a truncated file (exit 2), and a
# data-only list has no hash (--verify exit 1)
grep -v '^#h' "$data/leap-seconds.list.tzdata2026f" >"$tmp/nohash.list"
out=$("$lc" table --verify --file "$tmp/nohash.list" 2>&1)
expect_rc "list with #\$/#@ but no #h is truncated" 2 $?
expect_line "... and said so" 'truncated file' "$out"
grep -E '^[0-9]' "$data/leap-seconds.list.tzdata2026f" >"$tmp/dataonly.list"
out=$("$lc" table --verify --file "$tmp/dataonly.list" 2>&1)
expect_rc "--verify on a data-only list (hash missing)" 1 $?
expect_line "... hash missing" 'hash missing' "$out"

# ---- bad files: file:line: problem, exit 2
printf '2272060800 10\n2287785600 12\n' >"$tmp/step.list"
out=$("$lc" table --file "$tmp/step.list" 2>&1)
expect_rc "step of 2 s" 2 $?
expect_line "step: file:line: problem" 'step\.list:2: TAI-UTC steps from 10 to 12 s' "$out"
printf 'Leap 1972 Jun 30 12:00:00 + S\n' >"$tmp/noon.tz"
out=$("$lc" table --file "$tmp/noon.tz" 2>&1)
expect_rc "leap at noon" 2 $?
expect_line "noon: file:line: problem" 'noon\.tz:1: .*must end a UTC day' "$out"
head -c 3000 "$data/leap-seconds.list.tzdata2026f" >"$tmp/cut.list"
out=$("$lc" table --file "$tmp/cut.list" 2>&1)
expect_rc "file cut short" 2 $?
expect_line "cut: truncated" 'cut\.list:[0-9]+: truncated file' "$out"
out=$("$lc" table --file "$tmp/missing" 2>&1)
expect_rc "missing file" 2 $?
"$lc" table --bogus >/dev/null 2>&1
expect_rc "unknown option" 2 $?

# ---- a deletion
printf 'Leap 1972 Jun 30 23:59:60 + S\nLeap 1972 Dec 31 23:59:59 - S\n' >"$tmp/neg.tz"
out=$("$lc" table --file "$tmp/neg.tz" 2>&1)
expect_rc "table with a deletion" 0 $?
expect_line "deleted 23:59:59 shown, TAI-UTC back to 10" '^1972-12-31T23:59:59Z +-1 deleted +10 s$' "$out"

# ---- JSON
out=$("$lc" table --json --file "$data/leap-seconds.list.tzdata2025b" --now $now 2>/dev/null)
expect_rc "--json" 0 $?
if command -v python3 >/dev/null; then
	if python3 -m json.tool <<<"$out" >/dev/null 2>&1; then ok "--json parses (python3 -m json.tool)"; else
		bad "--json parses"; echo "$out" | sed 's/^/    /'; fi
	chk=$(python3 -c '
import json, sys
o = json.load(sys.stdin)
leaps = [l for l in o["leaps"] if l["dir"] != 0]
assert o["format"] == "iers", o["format"]
assert o["hash"] == "ok", o["hash"]
assert o["expired"] is True
assert "expired on 2026-06-28" in o["warning"], o["warning"]
assert o["expires"] == "2026-06-28T00:00:00Z" and o["expires_unix"] == 1782604800
assert o["updated_unix"] == 1751846400
assert len(leaps) == 27, len(leaps)
assert o["leaps"][0] == {"date": "1972-01-01T00:00:00Z", "when": 63072000, "dir": 0, "tai_utc": 10}
assert leaps[-1] == {"date": "2016-12-31T23:59:60Z", "when": 1483228800, "dir": 1, "tai_utc": 37}, leaps[-1]
assert all(b["tai_utc"] - a["tai_utc"] == b["dir"] for a, b in zip(o["leaps"], o["leaps"][1:]))
print("good")
' <<<"$out" 2>&1)
	expect_line "--json fields: format, hash, expired, warning, 27 leaps" '^good$' "$chk"
	out=$("$lc" table --json --verify --file "$tmp/tampered.list" 2>/dev/null)
	expect_rc "--json --verify on the tampered copy" 1 $?
	chk=$(python3 -c 'import json,sys; o=json.load(sys.stdin); print(o["hash"], o["verified"])' <<<"$out" 2>&1)
	expect_line "--json --verify: wrong, not verified" '^wrong False$' "$chk"
	out=$("$lc" table --json --file "$data/leapseconds.tzdata2026f" --now $now 2>/dev/null)
	chk=$(python3 -c 'import json,sys; o=json.load(sys.stdin); print(o["format"], o["hash"], o["expired"], o["warning"])' <<<"$out" 2>&1)
	expect_line "--json on 2026f tzdata: not expired, no warning" '^tzdata none False None$' "$chk"
else
	echo "skip JSON checks: needs Debian package python3"
fi

# ---- the system search, steered by LEAPCLOCK_LEAPFILE
out=$(LEAPCLOCK_LEAPFILE="$data/leapseconds.tzdata2026f" "$lc" table --now $now 2>&1)
expect_line "LEAPCLOCK_LEAPFILE is used" "^source: +$data/leapseconds\.tzdata2026f$" "$out"
# A table named by LEAPCLOCK_LEAPFILE or --file that cannot be used is an
# error (exit 2, file:line), never an answer from another table.
out=$(LEAPCLOCK_LEAPFILE="$tmp/tampered.list" "$lc" table --now $now 2>"$tmp/err")
expect_rc "a bad LEAPCLOCK_LEAPFILE is an error" 2 $?
expect_line "... naming the file and line" '^leapclock table: LEAPCLOCK_LEAPFILE: .*tampered\.list:120: hash mismatch' "$(cat "$tmp/err")"
[ -z "$out" ] && ok "... and no other table is shown" || bad "a bad LEAPCLOCK_LEAPFILE: another table shown: $out"
out=$(LEAPCLOCK_LEAPFILE="$tmp/nowhere.list" "$lc" table --now $now 2>"$tmp/err")
expect_rc "a missing LEAPCLOCK_LEAPFILE is an error" 2 $?
expect_line "... saying it is missing" 'nowhere\.list: named by LEAPCLOCK_LEAPFILE but missing' "$(cat "$tmp/err")"
out=$(LEAPCLOCK_LEAPFILE="$tmp/tampered.list" "$lc" table --verify 2>"$tmp/err")
expect_rc "--verify of a tampered LEAPCLOCK_LEAPFILE: hash wrong" 1 $?
expect_line "... says so" 'tampered\.list:120: hash mismatch' "$out"

# ---- a FIFO (or a device) as the table: refused at once, not waited on
mkfifo "$tmp/fifo"
out=$(timeout 10 "$lc" table --file "$tmp/fifo" 2>"$tmp/err")
expect_rc "a FIFO as --file is refused" 2 $?
expect_line "... as not a regular file" "^leapclock table: $tmp/fifo: is a FIFO: a leap-second file must be a regular file" "$(cat "$tmp/err")"
out=$(LEAPCLOCK_LEAPFILE=$tmp/fifo timeout 10 "$lc" table 2>"$tmp/err")
expect_rc "a FIFO as LEAPCLOCK_LEAPFILE is refused" 2 $?
out=$(timeout 10 "$lc" table --file /dev/zero 2>"$tmp/err")
expect_rc "/dev/zero as --file is refused" 2 $?
expect_line "... as a character device" 'is a character device' "$(cat "$tmp/err")"

# ---- leaps only at the end of a month (ITU-R TF.460): a row for
# 2018-03-15 (NTP 3730060800, from Python's calendar.timegm) with a valid
# hash (Python's hashlib over the #$, #@ and rows' numbers), and tzdata's
# "Leap 2016 Dec 15"
printf '#$\t3692217600\n#@\t3992312697\n2272060800\t10\n2287785600\t11\n3730060800\t12\n#h\t84aa427c 03a3ed9f 570142da 46d0963c 52e1a230\n' >"$tmp/mid.list"
out=$("$lc" table --file "$tmp/mid.list" 2>"$tmp/err")
expect_rc "a leap on 2018-03-14 (valid hash) is refused" 2 $?
expect_line "... with file:line and the rule" "^leapclock table: $tmp/mid\.list:5: a leap second at the end of 2018-03-14, which is not the last day of a month: ITU-R TF\.460" "$(cat "$tmp/err")"
no_line "... and not listed" '2018-03-14T23:59:60Z' "$out"
printf 'Leap\t1972\tJun\t30\t23:59:60\t+\tS\nLeap\t2016\tDec\t15\t23:59:60\t+\tS\n' >"$tmp/mid.tz"
"$lc" table --file "$tmp/mid.tz" >/dev/null 2>"$tmp/err"
expect_rc "tzdata Leap 2016 Dec 15 is refused" 2 $?
expect_line "... with file:line" "mid\.tz:2: a leap second at the end of 2016-12-15" "$(cat "$tmp/err")"

out=$("$lc" table --help 2>&1)
expect_line "--help shows usage" '^usage: leapclock table' "$out"

echo "$fails failed"
[ "$fails" -eq 0 ]
