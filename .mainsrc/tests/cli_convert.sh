#!/bin/bash
# cli_convert.sh BUILD_DIR SOURCE_DIR - `leapclock convert` end to end.
# Expected values are derived by hand: 2016-12-31T23:59:60Z is POSIX
# 1483228799 (repeated), TAI-UTC becomes 37 at 2017-01-01, so 23:59:60 is TAI
# 1483228836 = 2017-01-01T00:00:36; GPS = TAI - 315964819 = 1167264017
# (week 1930 = 1167264000, so 17 s into it); NTP = POSIX + 2208988800 =
# 3692217599 = 0xdc12c4ff.
set -u
build=${1:?usage: cli_convert.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: cli_convert.sh BUILD_DIR SOURCE_DIR}
lc=$build/leapclock
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A fixed table (tzdata 2026f, the 27 leaps) for every case: the system's
# file may differ, be missing or be expired on the machine running the tests.
builtin=$tmp/builtin.leapseconds
cp "$src/tests/data/leapseconds.tzdata2026f" "$builtin"

ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }

# expect_line NAME PATTERN OUTPUT
expect_line() {
	if grep -qE -- "$2" <<<"$3"; then ok "$1"; else
		bad "$1: no line matching '$2' in:"; echo "$3" | sed 's/^/    /'; fi
}

if [ ! -x "$lc" ]; then
	echo "FAIL leapclock binary not built at $lc"
	exit 1
fi

out=$("$lc" convert 2016-12-31T23:59:60Z --to tai,gps,unix,ntp --file "$builtin" 2>&1)
rc=$?
[ $rc -eq 0 ] && ok "example exits 0" || bad "example exits $rc"
expect_line "23:59:60Z is TAI 2017-01-01T00:00:36" '^tai +2017-01-01T00:00:36 TAI +\(1483228836 s\)' "$out"
expect_line "GPS 1167264017, week 1930 + 17 s" '^gps +1167264017 s +\(week 1930, 17 s of week\)' "$out"
expect_line "Unix 1483228799, the repeated second" '^unix +1483228799 +\(repeated' "$out"
expect_line "NTP 3692217599 = 0xdc12c4ff" '^ntp +era 0, 3692217599 s .*0xdc12c4ff00000000' "$out"
if grep -q '^utc' <<<"$out"; then bad "--to lists only the scales asked for"; else ok "--to lists only the scales asked for"; fi

# Every scale read back to UTC gives the same 23:59:60 (the POSIX counts,
# Unix and NTP, with --occurrence second: see below).
for in in "1483228836 --from tai" "2017-01-01T00:00:36 TAI|--from tai" \
	"1167264017 --from gps" "1930:17 --from gps" \
	"0xdc12c4ff00000000|--occurrence second" \
	"0:3692217599 --from ntp --occurrence second" \
	"1483228799 --occurrence second"; do
	if [[ $in == *"|"* ]]; then a=${in%%|*}; o=${in#*|}; else a=${in%% *}; o=${in#* }; [ "$o" = "$a" ] && o=""; fi
	# shellcheck disable=SC2086
	out=$("$lc" convert "$a" $o --to utc --file "$builtin" 2>&1)
	expect_line "'$a' $o is 2016-12-31T23:59:60Z" '^utc +2016-12-31T23:59:60(\.0+)?Z' "$out"
done
# A POSIX second that repeats is ambiguous: the first occurrence by default
# (as `date -u -d @1483228799` prints 23:59:59), said on stderr, and the
# second with --occurrence second. TAI: 23:59:59 is 1483228835 (TAI-UTC
# still 36), 23:59:60 is 1483228836.
out=$("$lc" convert 1483228799 --to utc,tai --file "$builtin" 2>"$tmp/e")
rc=$?
expect_line "POSIX 1483228799 -> 23:59:59Z, as date(1)" '^utc +2016-12-31T23:59:59Z$' "$out"
expect_line "... TAI of the first occurrence" '^tai +2017-01-01T00:00:35 TAI +\(1483228835 s\)' "$out"
[ $rc -eq 0 ] && ok "... exit 0" || bad "POSIX 1483228799: exit $rc"
expect_line "... said to be ambiguous on stderr" '^leapclock convert: note: 1483228799 is ambiguous: POSIX second 1483228799 is both 2016-12-31T23:59:59Z and 2016-12-31T23:59:60Z; this is the first \(--occurrence second for the other\)$' "$(cat "$tmp/e")"
if command -v date >/dev/null && [ "$(date -u -d @1483228799 +%T 2>/dev/null)" = 23:59:59 ]; then
	ok "date -u -d @1483228799 agrees: 23:59:59"; fi
out=$("$lc" convert 1483228799.5 --to utc --file "$builtin" 2>&1)
expect_line "POSIX 1483228799.5 -> 23:59:59.5Z" '^utc +2016-12-31T23:59:59\.5Z' "$out"
out=$("$lc" convert 1483228799.5 --occurrence second --to utc,tai --file "$builtin" 2>"$tmp/e")
expect_line "--occurrence second: 23:59:60.5Z" '^utc +2016-12-31T23:59:60\.5Z' "$out"
expect_line "--occurrence second: TAI 1483228836.5" '^tai +2017-01-01T00:00:36\.5 TAI' "$out"
expect_line "--occurrence second: still said" 'this is the second \(--occurrence first for the other\)' "$(cat "$tmp/e")"
out=$("$lc" convert 0:3692217599 --from ntp --to utc --file "$builtin" 2>"$tmp/e")
expect_line "NTP repeats it too: first occurrence" '^utc +2016-12-31T23:59:59Z$' "$out"
expect_line "... said" 'note: 0:3692217599 is ambiguous' "$(cat "$tmp/e")"
"$lc" convert 1483228800 --to utc --file "$builtin" >/dev/null 2>"$tmp/e"
if [ -s "$tmp/e" ]; then bad "a second that does not repeat: nothing said: $(cat "$tmp/e")"; else ok "a second that does not repeat: nothing said"; fi
out=$("$lc" convert 1483228800 --to utc,tai --file "$builtin" 2>&1)
expect_line "POSIX 1483228800 -> 2017-01-01T00:00:00Z" '^utc +2017-01-01T00:00:00Z$' "$out"
expect_line "... and TAI +37" '^tai +2017-01-01T00:00:37 TAI' "$out"

# JSON: valid, one member per scale.
if command -v python3 >/dev/null; then
	"$lc" convert 2016-12-31T23:59:60.25Z --json --file "$builtin" >"$tmp/j" 2>"$tmp/e"
	if python3 -m json.tool "$tmp/j" >/dev/null 2>&1; then ok "--json is valid JSON"; else
		bad "--json is not valid JSON:"; cat "$tmp/j"; fi
	keys=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(",".join(sorted(d)), d["tai"]["iso"], d["tai"]["seconds"], d["utc"]["leap_second"])' "$tmp/j" 2>&1)
	[ "$keys" = "gps,ntp,tai,unix,utc 2017-01-01T00:00:36.25 1483228836.25 True" ] &&
		ok "--json members and values" || bad "--json members and values: $keys"
	"$lc" convert 1969-07-20T20:17:40Z --json --file "$builtin" >"$tmp/j" 2>"$tmp/e"
	keys=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["tai"], d["gps"], d["unix"]["seconds"])' "$tmp/j" 2>&1)
	[ "$keys" = "None None -14182940" ] && ok "--json before 1972: tai/gps null" ||
		bad "--json before 1972: $keys"
else
	echo "skip --json checks: needs Debian package python3"
fi

# Bad input: exit 2 and a message naming the problem.
check_err() { # NAME PATTERN ARGS...
	local name=$1 pat=$2; shift 2
	"$lc" convert "$@" >"$tmp/o" 2>"$tmp/e"
	local rc=$?
	if [ $rc -eq 2 ] && grep -qE -- "$pat" "$tmp/e"; then ok "$name"; else
		bad "$name: rc $rc, stderr:"; sed 's/^/    /' "$tmp/e"; fi
}
check_err "no leap second on 2014-06-30" \
	'no leap second was inserted at the end of 2014-06-30' \
	2014-06-30T23:59:60Z --file "$builtin"
check_err "month 13" 'month 13 out of range' 2016-13-01T00:00:00Z --file "$builtin"
check_err "missing ':'" "expected ':' after hour at column 14" 2016-12-31T23 --file "$builtin"
check_err "unknown --to scale" "unknown output scale 'bogus'" 2016-12-31T00:00:00Z --to tai,bogus
check_err "unknown --from scale" "unknown input scale 'nope'" 1 --from nope
check_err "TAI asked for before 1972" 'no tai time: before 1972-01-01' 1969-07-20T20:17:40Z --to tai --file "$builtin"
check_err "bad Unix number" 'Unix seconds must be a decimal number' 12x --from unix
check_err "missing TIME" 'missing TIME'
check_err "GPS seconds-of-week range" 'seconds-of-week must be in' 1930:604800 --from gps
check_err "--occurrence is for POSIX counts" '--occurrence applies to POSIX counts' 2016-12-31T23:59:60Z --occurrence second
check_err "--occurrence value" "--occurrence: first or second, not 'third'" 1483228799 --occurrence third

# Outside the range every scale holds as int64_t ns (1677-09-22 to
# 2262-04-10): an error naming the range, on every input scale, never a
# wrapped answer (3000-01-01 used to print unix -4389808147).
range='supported range,? (is )?1677-09-22 to 2262-04-10'
for a in 3000-01-01T00:00:00Z 1600-01-01T00:00:00Z 0000-01-01T00:00:00Z \
	9999-12-31T23:59:59Z +10000-01-01T00:00:00Z 2262-04-11T00:00:00Z \
	1677-09-21T23:59:59Z; do
	check_err "$a is outside the range" "$range" "$a" --file "$builtin"
	check_err "$a --to unix too" "$range" "$a" --to unix --file "$builtin"
done
check_err "unix 32503680000 (3000-01-01)" "$range" 32503680000 --file "$builtin"
check_err "unix 9223286400 (2262-04-11)" "$range" 9223286400 --file "$builtin"
check_err "unix -9223286401 (1677-09-21)" "$range" --file "$builtin" -- -9223286401
check_err "TAI date in 3000" "$range" "3000-01-01T00:00:00 TAI" --from tai --file "$builtin"
check_err "TAI seconds past 2262-04-10" "$range" 9223286500 --from tai --file "$builtin"
check_err "GPS week 15000 (2267)" "$range" 15000:0 --from gps --file "$builtin"
check_err "NTP era 2 past 2262" "$range" 2:4294967295 --from ntp --file "$builtin"
check_err "NTP era -2 before 1677" "$range" --from ntp --file "$builtin" -- -2:0
check_err "utc-sls in 3000" "$range" 3000-01-01T00:00:00Z --from utc-sls --smear google --file "$builtin"
out=$("$lc" convert 2262-04-10T23:59:59Z --to utc,tai,unix --file "$builtin" 2>/dev/null)
expect_line "the last second of the range converts: TAI +37" '^tai +2262-04-11T00:00:36 TAI +\(9223286436 s\)' "$out"
expect_line "... unix 9223286399" '^unix +9223286399$' "$out"
out=$("$lc" convert 1677-09-22T00:00:00Z --to unix --file "$builtin" 2>/dev/null)
expect_line "the first second of the range converts" '^unix +-9223286400$' "$out"

# A table named with --file or LEAPCLOCK_LEAPFILE that cannot be used is an
# error, not an answer from another table.
cp "$builtin" "$tmp/mid"
printf 'Leap\t2018\tMar\t14\t23:59:60\t+\tS\n' >>"$tmp/mid"
check_err "--file with a leap not at a month's end" "$tmp/mid:[0-9]+: a leap second at the end of 2018-03-14" 2018-03-15T00:00:00Z --file "$tmp/mid"
LEAPCLOCK_LEAPFILE=$tmp/mid check_err "LEAPCLOCK_LEAPFILE with a leap not at a month's end" "LEAPCLOCK_LEAPFILE: $tmp/mid:[0-9]+: a leap second at the end of 2018-03-14" 2018-03-15T00:00:00Z
mkfifo "$tmp/fifo"
check_err "--file FIFO" "$tmp/fifo: is a FIFO" 2018-03-15T00:00:00Z --file "$tmp/fifo"
LEAPCLOCK_LEAPFILE=$tmp/mid "$lc" convert 2018-03-15T00:00:00Z >"$tmp/o" 2>"$tmp/e"
rc=$?
if [ $rc -eq 2 ] && [ ! -s "$tmp/o" ]; then ok "bad LEAPCLOCK_LEAPFILE: exit 2, no answer"; else bad "bad LEAPCLOCK_LEAPFILE: rc $rc, out $(cat "$tmp/o")"; fi
LEAPCLOCK_LEAPFILE=$tmp/fifo timeout 10 "$lc" convert 2018-03-15T00:00:00Z >"$tmp/o" 2>"$tmp/e"
rc=$?
if [ $rc -eq 2 ] && grep -q 'is a FIFO' "$tmp/e"; then ok "LEAPCLOCK_LEAPFILE FIFO: exit 2 at once"; else bad "LEAPCLOCK_LEAPFILE FIFO: rc $rc, $(cat "$tmp/e")"; fi

# Smeared UTC through tools/leapclock/smearconv.c. UTC-SLS (Kuhn's draft):
# the last 1000 UTC seconds of the day, 23:43:21..24:00:00 with the leap, run
# 0.1% slow (999 SLS s). UTC 23:59:60.0 is 999 UTC s in: 999 * 0.999 =
# 998.001 SLS s, so 23:59:59.001; SLS 23:59:59.75 is 998.75 SLS s in:
# 998.75 / 0.999 = 999.7497 UTC s, so 23:59:60.749.
out=$("$lc" convert 2016-12-31T23:59:60Z --smear utc-sls --to utc-sls --file "$builtin" 2>&1)
expect_line "utc-sls of 23:59:60 is 23:59:59.001" '^utc-sls +2016-12-31T23:59:59\.001000' "$out"
out=$("$lc" convert 2016-12-31T23:59:59.75Z --from utc_sls --smear utc-sls --to utc --file "$builtin" 2>&1)
expect_line "utc-sls 23:59:59.75 is UTC 23:59:60.74" '^utc +2016-12-31T23:59:60\.74Z' "$out"
out=$("$lc" convert 2016-12-31T12:00:00Z --smear utc-sls --file "$builtin" 2>&1)
expect_line "utc-sls is in the default output with --smear" '^utc-sls +2016-12-31T12:00:00\.000000000Z' "$out"
out=$("$lc" convert 2016-12-31T12:00:00Z --file "$builtin" 2>&1)
if grep -q '^utc-sls' <<<"$out"; then bad "no utc-sls without --smear"; else ok "no utc-sls without --smear"; fi
check_err "utc-sls needs --smear" '--to utc-sls needs --smear PRESET' 2016-12-31T00:00:00Z --to utc-sls
check_err "unknown smear preset" "unknown preset 'nope' \\(google" 2016-12-31T00:00:00Z --smear nope

# Past the table's expiry: answer plus a warning, exit 0 (tzdata 2025b's
# list expired on 2026-06-28).
out=$("$lc" convert 2030-01-01T00:00:00Z --to tai --file "$src/tests/data/leap-seconds.list.tzdata2025b" 2>"$tmp/e")
rc=$?
expect_line "after expiry: still answers (TAI-UTC 37)" '^tai +2030-01-01T00:00:37 TAI' "$out"
if [ $rc -eq 0 ] && grep -q 'after the expiry of the leap table.*2026-06-28' "$tmp/e"; then
	ok "after expiry: warns, exit 0"; else bad "after expiry: rc $rc, stderr: $(cat "$tmp/e")"; fi
"$lc" convert 2020-01-01T00:00:00Z --to tai --file "$src/tests/data/leap-seconds.list.tzdata2025b" >/dev/null 2>"$tmp/e"
if [ -s "$tmp/e" ]; then bad "before expiry: no warning expected: $(cat "$tmp/e")"; else ok "before expiry: no warning"; fi

# A deleted second in a table loaded with --file.
cat >"$tmp/neg" <<'T'
Leap	1972	Jun	30	23:59:60	+	S
Leap	2030	Jun	30	23:59:59	-	S
#expires 2000000000 (2033-05-18 03:33:20 UTC)
T
"$lc" convert 2030-06-30T23:59:58Z --file "$tmp/neg" --to tai >/dev/null 2>"$tmp/e"
if [ $? -ne 0 ] && grep -q 'not implemented\|not supported\|parser not built' "$tmp/e"; then
	echo "skip deleted second: the tzdata parser is not available"
else
	check_err "deleted 23:59:59 rejected" '2030-06-30 was deleted' 2030-06-30T23:59:59Z --file "$tmp/neg"
	out=$("$lc" convert 2030-07-01T00:00:00Z --to tai --file "$tmp/neg" 2>&1)
	expect_line "TAI-UTC back to 10 after the deletion" '^tai +2030-07-01T00:00:10 TAI' "$out"
fi

if [ $fails -ne 0 ]; then
	echo "$fails failed"
	exit 1
fi
echo "all passed"
