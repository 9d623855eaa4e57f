#!/usr/bin/env bash
# install.sh BUILD_DIR SOURCE_DIR: `cmake --install` into a scratch prefix,
# then build two small programs against the installed library, one with
# pkg-config and one with find_package(leapclock), and run them: the header,
# leapclock.pc, the CMake package and the shared and static libraries must
# all be usable by someone who only has the installed files.
set -u
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }

if ! command -v pkg-config >/dev/null; then
  echo "skip install.sh: needs Debian package pkg-config"
  exit 77
fi
# A sanitizer build installs an instrumented library: its users need the flag.
san=$(sed -n 's/^LC_SANITIZE:STRING=//p' "$build/CMakeCache.txt")
sanflags=${san:+-fsanitize=$san}
cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
cc=${cc:-cc}
cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 \
  && ok "cmake --install into a scratch prefix" || { bad "cmake --install"; cat "$tmp/install.log"; }
for f in include/leapclock.h lib/pkgconfig/leapclock.pc lib/cmake/leapclock/leapclockConfig.cmake \
         bin/leapclock share/man/man1/leapclock.1; do
  [ -e "$tmp/prefix/$f" ] && ok "installed $f" || bad "installed $f"
done

cat >"$tmp/app.c" <<'C'
#include <leapclock.h>
#include <stdio.h>
int main(void)
{
	lc_leaptable *t = lc_leaptable_new();
	struct timespec utc;
	int64_t tai;
	char buf[64];
	if (lc_iso8601_parse("2016-12-31T23:59:60Z", t, &utc, NULL) < 0 ||
	    lc_tai_from_utc(t, &utc, &tai) < 0)
		return 1;
	lc_iso8601_format_scale(tai, 0, buf, sizeof(buf));
	printf("%s\n", buf);
	lc_leaptable_free(t);
	return 0;
}
C
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
if $cc $sanflags -o "$tmp/app" "$tmp/app.c" $(pkg-config --cflags --libs leapclock) \
   -Wl,-rpath,"$tmp/prefix/lib" 2>"$tmp/cc.log"; then
  ok "a program builds with pkg-config --cflags --libs leapclock"
  out=$("$tmp/app")
  [ "$out" = "2017-01-01T00:00:36" ] && ok "it runs on the shared library: 23:59:60 is TAI 2017-01-01T00:00:36" \
    || bad "shared: got '$out'"
else
  bad "pkg-config build"; cat "$tmp/cc.log"
fi
if $cc $sanflags -o "$tmp/app_static" "$tmp/app.c" $(pkg-config --cflags leapclock) \
   "$tmp/prefix/lib/libleapclock.a" -lm -lpthread 2>"$tmp/cc2.log"; then
  out=$("$tmp/app_static")
  [ "$out" = "2017-01-01T00:00:36" ] && ok "the static library links and runs" || bad "static: got '$out'"
else
  bad "static build"; cat "$tmp/cc2.log"
fi

mkdir -p "$tmp/cm"
cp "$tmp/app.c" "$tmp/cm/app.c"
cat >"$tmp/cm/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(app C)
find_package(leapclock REQUIRED)
add_executable(app app.c)
target_link_libraries(app leapclock::leapclock)
CM
if cmake -S "$tmp/cm" -B "$tmp/cm/b" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
     -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$sanflags" >"$tmp/cm.log" 2>&1 \
   && cmake --build "$tmp/cm/b" >>"$tmp/cm.log" 2>&1; then
  out=$(LD_LIBRARY_PATH="$tmp/prefix/lib" "$tmp/cm/b/app")
  [ "$out" = "2017-01-01T00:00:36" ] && ok "find_package(leapclock) builds and runs" || bad "cmake: got '$out'"
else
  bad "find_package(leapclock) build"; cat "$tmp/cm.log"
fi

# issue 16: the installed systemd unit runs the daemon this install put in
# PREFIX/sbin (it named /usr/local/sbin whatever the prefix).
unit="$tmp/prefix/lib/systemd/system/leapclockd.service"
exe=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$unit" 2>/dev/null)
if [ "$exe" = "$tmp/prefix/sbin/leapclockd" ] && [ -x "$exe" ]; then
  ok "leapclockd.service's ExecStart is the installed daemon, $exe"
else
  bad "leapclockd.service's ExecStart: '$exe', not $tmp/prefix/sbin/leapclockd"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
