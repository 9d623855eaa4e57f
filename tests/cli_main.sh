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

[ $fails -eq 0 ]
