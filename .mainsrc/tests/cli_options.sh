#!/bin/bash
# cli_options.sh BUILD_DIR SOURCE_DIR - options that mean the same thing have
# the same name in every command (issue 16): --leapfile names the leap file
# in table, convert, run and leapclockd, --file stays as its alias in table
# and convert (and run); --help and the man pages document --leapfile.
# convert's 0xHEX input is 16 digits; outputs that would share stdout (or
# views that would drop one another) are refused.
set -u
B=${1:?build dir}
S=${2:-$(cd "$(dirname "$0")/.." && pwd)}
L="$B/leapclock"
fails=0
# shellcheck source=progs/check_lib.sh
. "$S/tests/progs/check_lib.sh"
[ -x "$L" ] || { echo "skip: $L not built"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
data="$S/tests/data"
f26="$data/leap-seconds.list.tzdata2026f"
# a sanitizer build's shim needs its runtimes loaded first
sanitizer_preload "$B"
lc_run() {
	LD_PRELOAD="$san_preload" timeout 10 "$L" run "$@"
}

# ---- --leapfile, and --file as its alias ----------------------------------
for opt in --leapfile --file; do
	out=$("$L" table $opt "$f26" 2>"$tmp/err"); rc=$?
	expect_rc "table $opt FILE" 0 $rc
	expect_line "table $opt: source is the file" "^source: +$f26\$" "$out"
	out=$("$L" table "$opt=$f26" 2>&1); rc=$?
	expect_rc "table $opt=FILE" 0 $rc
	out=$("$L" convert 2016-12-31T23:59:60Z --to tai $opt "$f26" 2>&1); rc=$?
	expect_rc "convert $opt FILE" 0 $rc
	expect_line "convert $opt: TAI of 2016's leap" '2017-01-01T00:00:36' "$out"
	out=$("$L" convert 2016-12-31T23:59:60Z --to tai "$opt=$f26" 2>&1); rc=$?
	expect_rc "convert $opt=FILE" 0 $rc
	out=$(lc_run $opt "$f26" -- true 2>&1); rc=$?
	expect_rc "run $opt FILE -- true" 0 $rc
done
# a bad file is named, exit 2, whichever name was used
"$L" table --leapfile "$tmp/none" >/dev/null 2>"$tmp/err"; rc=$?
expect_rc "table --leapfile MISSING" 2 $rc
expect_line "the missing file is named" "$tmp/none" "$(cat "$tmp/err")"
"$L" convert 0 --leapfile "$tmp/none" >/dev/null 2>"$tmp/err"; rc=$?
expect_rc "convert --leapfile MISSING" 2 $rc
# documented as --leapfile
for c in table convert run; do
	expect_line "$c --help documents --leapfile" '--leapfile' "$("$L" $c --help)"
	expect_line "leapclock-$c.1 documents --leapfile" '\\-\\-leapfile' "$(cat "$S/docs/leapclock-$c.1")"
done
if [ -x "$B/leapclockd" ]; then
	expect_line "leapclockd --help documents --leapfile" '--leapfile' "$("$B/leapclockd" --help 2>&1)"
fi

# ---- convert 0xHEX: exactly 16 hex digits (0x123 was read as 68 ns) ------
for t in 0x123 0xdc12c4ff0000000 0xdc12c4ff000000000 0x-c12c4ff00000000; do
	out=$("$L" convert "$t" --leapfile "$f26" 2>"$tmp/err"); rc=$?
	expect_rc "convert $t refused" 2 $rc
	expect_line "convert $t: says 16 hex digits" "$t: .*16 hex digits" "$(cat "$tmp/err")"
	[ -z "$out" ] && ok "convert $t: nothing on stdout" || bad "convert $t printed $out"
done
out=$("$L" convert 0xdc12c4ff00000000 --to utc --leapfile "$f26" 2>/dev/null); rc=$?
expect_rc "convert 0xdc12c4ff00000000" 0 $rc
expect_line "0xdc12c4ff00000000 is 2016-12-31T23:59:59Z" '^utc +2016-12-31T23:59:59\.000000000Z' "$out"
"$L" convert "" >/dev/null 2>"$tmp/err"; rc=$?
expect_rc "convert ''" 2 $rc
no_line "convert '': no internal label" '<time>' "$(cat "$tmp/err")"

# ---- two outputs for one stdout, or two views: refused, exit 2 -------------
# (simulate --json --trace wrote the trace's text into the JSON array;
# server-stats --refid X --query Y silently dropped the query)
refused() { # NAME PATTERN ARGS...
	local name=$1 pat=$2; shift 2
	out=$("$L" "$@" 2>"$tmp/err"); rc=$?
	if [ $rc -eq 2 ] && [ -z "$out" ] && grep -qE -- "$pat" "$tmp/err"; then ok "$name: refused (exit 2)"
	else bad "$name: rc=$rc err=$(cat "$tmp/err") out=$(head -c 200 <<<"$out")"; fi
}
refused "simulate --json --trace" '--json and --trace' simulate --model exact --json --trace
refused "server-stats --refid --query" '--refid and --query' server-stats --refid 254.192.0.0 --query 127.0.0.1:1
refused "server-stats --file --refid" '--file .*--refid' server-stats --file "$tmp/stats" --refid 254.192.0.0
refused "server-stats --file --query" '--file .*--query' server-stats --file "$tmp/stats" --query 127.0.0.1:1
refused "server-stats --count without --query" '--count applies to --query' server-stats --count 2 --refid 1.2.3.4
refused "server-stats --interval without --query" '--interval applies to --query' server-stats --interval 0 --file "$tmp/stats"

# ---- one option parser (getopt_long) in every subcommand (issue 27 item 5) -
# convert, simulate, server-stats and kernel-test parsed by hand: --opt=VALUE
# was refused by simulate and server-stats and abbreviations by all four,
# while table, now, run, smear and status took both.
abbrev() { # NAME WANT_RC PATTERN ARGS...: exit WANT_RC and PATTERN in stdout+stderr
	local name=$1 want=$2 pat=$3; shift 3
	out=$("$L" "$@" 2>&1); rc=$?
	if [ $rc -eq "$want" ] && grep -qE -- "$pat" <<<"$out"; then ok "$name (exit $rc)"
	else bad "$name: want exit $want and /$pat/, got exit $rc: $(head -c 300 <<<"$out")"; fi
}
abbrev "convert --leapf FILE --js (abbreviations)" 0 '"tai": \{"iso": "2017-01-01T00:00:36' \
	convert 2016-12-31T23:59:60Z --to tai --leapf "$f26" --js
abbrev "convert --to=tai --occ=second" 0 '2017-01-01T00:00:36' \
	convert 1483228799 --to=tai --occ=second --leapfile="$f26"
abbrev "convert --f (ambiguous: --from, --file)" 2 "unknown option '--f'" convert 0 --f utc
abbrev "convert a negative TIME is still a time" 0 '^utc +1969-12-31T23:59:58\.5Z' \
	convert -1.5 --to utc --leapfile "$f26"
abbrev "convert -- then a TIME that starts with -" 0 '^utc +1969-12-31T23:59:59' \
	convert --to utc --leapfile "$f26" -- -1
abbrev "convert --to (no value)" 2 "'--to' needs a value|--to needs a value" convert 0 --to
abbrev "simulate --mod exact --js --hz=100 (abbreviation, =VALUE)" 0 '"model": *"exact"' \
	simulate --mod exact --js --hz=100
abbrev "simulate --re (ambiguous: --reader, --read-cost, --readers)" 2 "unknown option '--re'" \
	simulate --model exact --re 2
abbrev "simulate --timer (ambiguous: --timers, --timer-latency)" 2 "unknown option '--timer'" \
	simulate --model exact --timer 2
abbrev "simulate --hz (no value)" 2 "missing value: '--hz'" simulate --model exact --hz
abbrev "simulate a stray argument" 2 "unexpected argument 'exact'" simulate exact
abbrev "server-stats --ref=254.192.0.0 --js (abbreviation, =VALUE)" 0 '"smear_offset_ns":-' \
	server-stats --ref=254.192.0.0 --js
abbrev "server-stats --refid (no value)" 2 "'--refid' needs a value" server-stats --refid
abbrev "server-stats --bogus" 2 "unknown option '--bogus'" server-stats --bogus
abbrev "server-stats -f FILE still reads a stats file" 3 "$tmp/none" server-stats -f "$tmp/none"
# kernel-test parses only with CAP_SYS_TIME (it refuses first without it), and
# with it an accepted agreement would set this host's clock: run here only
# where the capability is gone (make check drops it), where it must refuse.
if ! grep -q '^CapEff:.*' /proc/self/status || \
   [ $(( $(printf '%d' "0x$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)") >> 25 & 1 )) -eq 0 ]; then
	abbrev "kernel-test --i-understand (abbreviated agreement) refused" 2 'refusing to run' \
		kernel-test --i-understand
else
	echo "skip kernel-test: this shell has CAP_SYS_TIME (run under setpriv --bounding-set=-sys_time)"
fi

[ $fails -eq 0 ]
