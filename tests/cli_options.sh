#!/bin/bash
# cli_options.sh BUILD_DIR SOURCE_DIR - options that mean the same thing have
# the same name in every command (issue 16): --leapfile names the leap file
# in table, convert, run and leapclockd, --file stays as its alias in table
# and convert (and run); --help and the man pages document --leapfile.
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
	out=$("$L" run $opt "$f26" -- true 2>&1); rc=$?
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

[ $fails -eq 0 ]
