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
# sanitizer_preload BUILD_DIR: in a sanitizer build, sets san_preload to the
# sanitizer runtimes a program started under the (sanitized) shim must load
# first, and the ASAN_OPTIONS that allows it; empty otherwise.
sanitizer_preload() {
	local cc_path rt f
	san_preload=
	grep -q '^LC_SANITIZE:STRING=.\+' "$1/CMakeCache.txt" 2>/dev/null || return 0
	cc_path=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$1/CMakeCache.txt")
	for rt in libasan.so libubsan.so; do
		f=$("${cc_path:-cc}" -print-file-name=$rt 2>/dev/null)
		[ -n "$f" ] && [ -f "$f" ] && san_preload="$san_preload${san_preload:+:}$f"
	done
	export ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0
}
# build_cc BUILD_DIR: sets cc and sanflags so a test's own program is built
# as the library in BUILD_DIR was (its compiler; in a sanitizer build, the
# same -fsanitize and ASAN_OPTIONS without leak checks). CC overrides the
# compiler of a plain build.
build_cc() {
	local san
	cc=${CC:-cc}
	sanflags=
	san=$(sed -n 's/^LC_SANITIZE:STRING=//p' "$1/CMakeCache.txt" 2>/dev/null)
	[ -n "$san" ] || return 0
	sanflags=-fsanitize=$san
	cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$1/CMakeCache.txt")
	cc=${cc:-cc}
	export ASAN_OPTIONS=detect_leaks=0
}
