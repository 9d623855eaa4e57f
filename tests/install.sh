#!/usr/bin/env bash
# install.sh BUILD_DIR SOURCE_DIR: `cmake --install` into a scratch prefix,
# then build small programs against the installed library, with pkg-config
# and with find_package(leapclock), and run them: the header, leapclock.pc,
# the CMake package and the shared and static libraries must all be usable
# by someone who only has the installed files. The header must compile on
# its own, without the feature-test macros the project's build defines
# (issue 16): strict C11 and C17 with -pedantic, GNU C11, and C++17.
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
if ! command -v g++ >/dev/null; then
  echo "skip install.sh: needs Debian package g++ (the C++ consumer)"
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
# The header alone, in each language mode a consumer may pick: no
# _POSIX_C_SOURCE, so nothing POSIX-only (clockid_t) may appear in it; the
# C++ build links only if the declarations are inside extern "C".
cp "$tmp/app.c" "$tmp/app.cpp"
for mode in "$cc -std=c11 -pedantic-errors" "$cc -std=c17 -pedantic-errors" "$cc -std=gnu11" \
            "g++ -std=c++17 -pedantic-errors"; do
  set -- $mode
  file="$tmp/app.c"
  [ "$1" = g++ ] && file="$tmp/app.cpp"
  if $mode $sanflags -Wall -Wextra -Werror -o "$tmp/app_mode" "$file" \
       $(pkg-config --cflags --libs leapclock) -Wl,-rpath,"$tmp/prefix/lib" 2>"$tmp/mode.log"; then
    out=$("$tmp/app_mode")
    [ "$out" = "2017-01-01T00:00:36" ] && ok "the header builds and links under ${mode#* }" \
      || bad "${mode#* }: got '$out'"
  else
    bad "the header under ${mode#* }"; cat "$tmp/mode.log"
  fi
done
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
set(CMAKE_C_STANDARD 11)
set(CMAKE_C_STANDARD_REQUIRED ON)
set(CMAKE_C_EXTENSIONS OFF)
find_package(leapclock REQUIRED)
add_executable(app app.c)
target_link_libraries(app leapclock::leapclock)
CM
if cmake -S "$tmp/cm" -B "$tmp/cm/b" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
     -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$sanflags" >"$tmp/cm.log" 2>&1 \
   && cmake --build "$tmp/cm/b" >>"$tmp/cm.log" 2>&1; then
  out=$(LD_LIBRARY_PATH="$tmp/prefix/lib" "$tmp/cm/b/app")
  [ "$out" = "2017-01-01T00:00:36" ] && ok "find_package(leapclock) builds (C11, CMAKE_C_EXTENSIONS OFF) and runs" || bad "cmake: got '$out'"
else
  bad "find_package(leapclock) build"; cat "$tmp/cm.log"
fi

# Manual pages (issue 16): each page renders without a groff warning, and
# every function the installed header declares has its own name as a page
# (an alias of its family's page), so a new function without a page fails.
man3="$tmp/prefix/share/man/man3"
if command -v man >/dev/null; then
  for p in "$src"/docs/*.3; do
    n=$(basename "$p")
    (cd "$tmp/prefix/share/man" && MANWIDTH=80 man --warnings -l "man3/$n") >"$tmp/man.out" 2>"$tmp/man.err"
    if [ -s "$tmp/man.out" ] && ! [ -s "$tmp/man.err" ]; then
      ok "man -l $n renders without warnings"
    else
      bad "man -l $n"; cat "$tmp/man.err"
    fi
  done
  # The commands' and the daemon's pages too (issue 27): no groff warning,
  # and no words run together, as ".BR Processes ). The rate ..." made of
  # a sentence ("Processes).Theratelimitisone..." in man and mandoc): a
  # lower-case letter or ')' then '.' then a capitalised word, outside URLs.
  for p in "$src"/docs/*.1 "$src"/docs/*.5 "$src"/docs/*.8; do
    n=$(basename "$p")
    MANWIDTH=80 man --warnings -l "$p" 2>"$tmp/man.err" | col -b >"$tmp/man.out"
    glued=$(grep -E '[a-z)]\.[A-Z][a-z]{2,}' "$tmp/man.out" | grep -vE 'https?://|e\.g\.|i\.e\.' | head -3)
    if [ -s "$tmp/man.out" ] && ! [ -s "$tmp/man.err" ] && [ -z "$glued" ]; then
      ok "man -l $n renders without warnings or run-together words"
    else
      bad "man -l $n: $(head -c 300 "$tmp/man.err") $glued"
    fi
  done
  funcs=$(grep -oE '^LC_API [^(/]*[ *]lc_[a-z0-9_]+\(' "$tmp/prefix/include/leapclock.h" \
          | grep -oE 'lc_[a-z0-9_]+\($' | tr -d '(')
  nf=0 missing=""
  for f in $funcs; do
    nf=$((nf + 1))
    if ! [ -e "$man3/$f.3" ]; then missing="$missing $f"; continue; fi
    MANWIDTH=80 man --nh --nj --warnings -M "$tmp/prefix/share/man" 3 "$f" >"$tmp/man.out" 2>"$tmp/man.err"
    if ! grep -q "\<${f}()" "$tmp/man.out" || [ -s "$tmp/man.err" ]; then
      missing="$missing $f(renders:$(head -c 200 "$tmp/man.err"))"
    fi
  done
  [ "$nf" -gt 100 ] && ok "the header declares $nf functions" || bad "found only $nf functions in the header"
  [ -z "$missing" ] && ok "man 3 NAME opens a page naming NAME(), without warnings, for all $nf" \
    || bad "no page (alias) naming NAME() for:$missing"
  # and the other way: no page or alias for a function the header no
  # longer declares (issue 15 removed lc_sha1, lc_smear_window...)
  stale=""
  for a in "$man3"/lc_*.3; do
    [ -e "$a" ] || continue
    n=$(basename "$a" .3)
    printf '%s\n' $funcs | grep -qx "$n" || stale="$stale $n"
  done
  [ -z "$stale" ] && ok "every lc_*.3 page names a function of the header" \
    || bad "man3 pages for functions the header does not declare:$stale"
else
  echo "skip the manual pages: needs Debian package man-db"
  man_skipped=1
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
[ "$fail" = 0 ] || exit 1
[ -z "${man_skipped:-}" ] || exit 77
