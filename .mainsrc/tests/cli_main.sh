#!/bin/bash
# cli_main.sh BUILD_DIR SOURCE_DIR - the leapclock dispatcher (tools/leapclock/
# main.c): --version and -V, help for a command, and that what an error
# message suggests works.
set -u
B=${1:?build dir}
L="$B/leapclock"
fails=0
# shellcheck source=progs/check_lib.sh
. "$(dirname "$0")/progs/check_lib.sh"
[ -x "$L" ] || { echo "skip: $L not built"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# -V and --version alike (leapclockd takes -V; leapclock said "unknown
# command '-V'")
for v in -V --version; do
	out=$("$L" $v 2>&1); rc=$?
	expect_rc "leapclock $v" 0 $rc
	expect_line "leapclock $v prints the version" '^leapclock [0-9]+\.[0-9]+\.[0-9]+$' "$out"
done
"$L" --help >"$tmp/help"
expect_line "--help mentions -V" '-V \| --version' "$(cat "$tmp/help")"

# help for an unknown command: exit 2, and the hint it gives must work
# (it suggested 'leapclock help --help', itself an unknown command)
"$L" help nosuch >/dev/null 2>"$tmp/err"; rc=$?
expect_rc "help nosuch" 2 $rc
expect_line "help nosuch names the command" "unknown command 'nosuch'" "$(cat "$tmp/err")"
hint=$(grep -o "'leapclock [^']*'" "$tmp/err" | tr -d "'")
if [ -n "$hint" ]; then
	# shellcheck disable=SC2086
	"$B"/$hint >/dev/null 2>&1; rc=$?
	expect_rc "the hint '$hint' works" 0 $rc
else
	bad "help nosuch gives no hint: $(cat "$tmp/err")"
fi
"$L" help convert >/dev/null; expect_rc "help convert" 0 $?

# every command's error hint ('leapclock CMD --help') works
for c in convert now simulate status table server-stats; do
	"$L" $c --no-such-option >/dev/null 2>"$tmp/err"; rc=$?
	expect_rc "$c --no-such-option" 2 $rc
	hint=$(grep -o "'leapclock [^']*'" "$tmp/err" | head -1 | tr -d "'")
	# shellcheck disable=SC2086
	[ -n "$hint" ] && { "$B"/$hint >/dev/null 2>&1; expect_rc "$c: hint '$hint' works" 0 $?; }
done

# ---- issue 27: the docs a first try reads
S=$(cd "$(dirname "$0")/.." && pwd)
see=$(sed -n '/^\.SH SEE ALSO/,$p' "$S/docs/leapclock.1")
for p in 'leapclock-server-stats \(1\)' 'leapclockd.conf \(5\)' 'leapclock \(3\)' 'leapclock-status \(1\)'; do
	expect_line "leapclock(1) SEE ALSO: $p" "^\.BR $p" "$see"
done
# README's first leapclockd block takes no host page: each leapclockd line
# says --no-timeline, --timeline or --pretend (which publishes none)
first=$(awk '/^## Serving a fleet/ { sec = 1 } sec && /^```sh$/ { c = 1; next }
	c && /^```$/ { exit } c { print }' "$S/README.md" | sed -e ':a' -e '/\\$/N; s/\\\n//; ta')
n=$(grep -c '^leapclockd ' <<<"$first")
m=$(grep '^leapclockd ' <<<"$first" | grep -c -e '--no-timeline\|--timeline \|--pretend')
[ "$n" -gt 0 ] && [ "$n" -eq "$m" ] && ok "README's first daemon example: no host page ($m of $n lines)" ||
	bad "README's first daemon example: $m of $n leapclockd lines avoid the host's page: $first"
no_line "README: no --user ntp (Debian 12 has no ntp user)" '--user ntp\b' "$(cat "$S/README.md")"
# -v: the search in full; usage names it
expect_line "leapclock --help names -v" 'leapclock -v COMMAND' "$("$L" --help)"
LEAPCLOCK_TIMELINE=none LEAPCLOCK_LEAPFILE=$S/tests/data/leap-seconds.list.tzdata2026f "$L" -v now >/dev/null 2>"$tmp/v.err"
expect_rc "leapclock -v now" 0 $?

[ $fails -eq 0 ]
