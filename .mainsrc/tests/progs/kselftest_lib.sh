# kselftest_lib.sh - sourced by tests/kselftest_*.sh (and later the VM
# test): the Linux kernel's own timer selftests, taken at test time from
# Debian's linux-source-6.1 package and built in a folder of the build
# tree. Nothing of the kernel is copied into this repository.
#
#   ks_prepare DIR   extracts tools/testing/selftests/timers/ and
#                    kselftest.h into DIR/src (again only when the tarball
#                    changed) and builds the programs of KS_PROGS into
#                    DIR/bin. Returns 77 (with a line naming the package)
#                    when the package is absent, 1 when it cannot build.
#   KS_TARBALL       the package's tarball (default
#                    /usr/src/linux-source-6.1.tar.xz)

KS_TARBALL=${KS_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
KS_PROGS=${KS_PROGS:-set-timer-lat nanosleep nsleep-lat inconsistency-check posix_timers mqueue-lat threadtest}

ks_prepare() {
	local dir=$1 top stamp cc=${CC:-cc} p
	if [ ! -r "$KS_TARBALL" ]; then
		echo "skip kernel timer selftests: $KS_TARBALL absent (Debian package linux-source-6.1)"
		return 77
	fi
	command -v "$cc" >/dev/null || cc=gcc
	mkdir -p "$dir" || return 1
	top=$(basename "$KS_TARBALL" .tar.xz)
	stamp="$(stat -c '%s %Y' "$KS_TARBALL") $top"
	if [ "$(cat "$dir/src.stamp" 2>/dev/null)" != "$stamp" ] ||
		[ ! -f "$dir/src/timers/set-timer-lat.c" ]; then
		rm -rf "$dir/src" "$dir/src.stamp" "$dir/x"
		mkdir -p "$dir/x"
		if ! tar -xJf "$KS_TARBALL" -C "$dir/x" \
			"$top/tools/testing/selftests/timers" \
			"$top/tools/testing/selftests/kselftest.h" 2>"$dir/tar.log"; then
			echo "FAIL cannot extract the timer selftests from $KS_TARBALL"
			sed 's/^/    /' "$dir/tar.log"
			return 1
		fi
		mv "$dir/x/$top/tools/testing/selftests" "$dir/src" && rm -rf "$dir/x"
		echo "$stamp" >"$dir/src.stamp"
	fi
	mkdir -p "$dir/bin"
	for p in $KS_PROGS; do
		[ "$dir/bin/$p" -nt "$dir/src/timers/$p.c" ] && continue
		# the selftests' own flags (tools/testing/selftests/timers/Makefile)
		if ! "$cc" -O3 -Wl,-no-as-needed -Wall -o "$dir/bin/$p" \
			"$dir/src/timers/$p.c" -lrt -lpthread -lm >"$dir/$p.cc.log" 2>&1; then
			echo "FAIL cannot build the selftest $p"
			sed 's/^/    /' "$dir/$p.cc.log"
			return 1
		fi
	done
	return 0
}
