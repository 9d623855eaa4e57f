#!/usr/bin/env bash
# abi_exports.sh BUILD_DIR SOURCE_DIR: libleapclock.so exports exactly the
# functions include/leapclock.h declares with LC_API (issue 15): no lc__
# internal, no simulator, no helper that a test or tool reaches through the
# static library; and every declared function is there. Also: the soname's
# number is the header's LC_ABI_VERSION, and LC_VERSION_STRING is the
# project's version (what leapclock.pc and the CMake package say).
set -u
build=$1 src=$2
hdr="$src/include/leapclock.h"
so="$build/libleapclock.so"
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }

for tool in nm readelf; do
  if ! command -v $tool >/dev/null; then
    echo "skip abi_exports.sh: needs Debian package binutils ($tool)"
    exit 77
  fi
done
if ! [ -e "$so" ]; then
  echo "FAIL no $so (build the target leapclock)"
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The header's functions: each declaration starts a line with LC_API; the
# name is the identifier before the first '('.
grep -E '^LC_API ' "$hdr" | sed -E 's/\(.*//' | grep -oE '[a-z_][a-z0-9_]*$' \
  | sort -u >"$tmp/declared"
# Every function-like declaration at the start of a line must carry LC_API,
# or it would be declared and not exported (the check above would not see it).
# An indented LC_API would be missed by the parse above: refuse it too.
{ grep -nE '^[a-z][^(/;]*[ *]lc_[a-z0-9_]+\(' "$hdr" | grep -v ':typedef'
  grep -nE '^[[:space:]]+LC_API' "$hdr"; } >"$tmp/unmarked"
if [ -s "$tmp/unmarked" ]; then
  bad "declarations without LC_API at the start of the line: $(tr '\n' ' ' <"$tmp/unmarked")"
else
  ok "every function declaration of leapclock.h starts with LC_API"
fi
nd=$(wc -l <"$tmp/declared")
[ "$nd" -gt 100 ] && ok "the header declares $nd functions with LC_API" \
  || bad "only $nd LC_API declarations found in $hdr"

# The library's dynamic symbols that it defines (functions and data, any
# binding), without the linker's own (_init, _fini, __bss_start...).
nm -D --defined-only "$so" | awk '{print $NF}' | sed 's/@.*//' \
  | grep -vE '^(_init|_fini|_edata|_end|__bss_start)$' | sort -u >"$tmp/exported"
ne=$(wc -l <"$tmp/exported")
extra=$(comm -13 "$tmp/declared" "$tmp/exported" | tr '\n' ' ')
missing=$(comm -23 "$tmp/declared" "$tmp/exported" | tr '\n' ' ')
[ -z "$extra" ] && ok "no symbol exported beyond the header's ($ne exported)" \
  || bad "exported but not declared with LC_API: $extra"
[ -z "$missing" ] && ok "every LC_API function is exported" \
  || bad "declared with LC_API but not exported: $missing"
n_internal=$(grep -c '^lc__' "$tmp/exported")
[ "$n_internal" = 0 ] && ok "no lc__ internal is exported" \
  || bad "$n_internal lc__ internals exported"

abi=$(sed -nE 's/^#define LC_ABI_VERSION ([0-9]+).*/\1/p' "$hdr")
soname=$(readelf -d "$so" | sed -nE 's/.*Library soname: \[(.*)\]/\1/p')
[ -n "$abi" ] && [ "$soname" = "libleapclock.so.$abi" ] \
  && ok "soname $soname matches LC_ABI_VERSION $abi" \
  || bad "soname '$soname', LC_ABI_VERSION '$abi'"
ver=$(sed -nE 's/^#define LC_VERSION_STRING "(.*)"/\1/p' "$hdr")
maj=$(sed -nE 's/^#define LC_VERSION_MAJOR ([0-9]+)/\1/p' "$hdr")
min=$(sed -nE 's/^#define LC_VERSION_MINOR ([0-9]+)/\1/p' "$hdr")
pat=$(sed -nE 's/^#define LC_VERSION_PATCH ([0-9]+)/\1/p' "$hdr")
proj=$(sed -nE 's/^CMAKE_PROJECT_VERSION:[A-Z]*=//p' "$build/CMakeCache.txt")
[ -z "$proj" ] && proj=$(sed -nE 's/^project\(leapclock VERSION ([0-9.]+).*/\1/p' "$src/CMakeLists.txt")
[ "$ver" = "$maj.$min.$pat" ] && [ "$ver" = "$proj" ] \
  && ok "LC_VERSION_STRING $ver = MAJOR.MINOR.PATCH = the project's version" \
  || bad "LC_VERSION_STRING '$ver', macros $maj.$min.$pat, project '$proj'"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
