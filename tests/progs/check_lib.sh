# check_lib.sh: the assertion helpers the tests/*.sh CLI tests share.
# Source it after setting `fails=0`; each helper prints one line.
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }

# expect_line NAME PATTERN TEXT
expect_line() {
	if grep -qE -- "$2" <<<"$3"; then ok "$1"; else
		bad "$1: no line matching '$2' in:"; echo "$3" | sed 's/^/    /'; fi
}
# no_line NAME PATTERN TEXT
no_line() {
	if grep -qE -- "$2" <<<"$3"; then
		bad "$1: unexpected line matching '$2' in:"; echo "$3" | sed 's/^/    /'
	else ok "$1"; fi
}
# expect_rc NAME WANT GOT
expect_rc() {
	if [ "$3" -eq "$2" ]; then ok "$1 (exit $3)"; else bad "$1: exit $3, want $2"; fi
}
