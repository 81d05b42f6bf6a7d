#!/usr/bin/env bash
# A configure that lacks a dependency must stop with a message naming the Debian package that
# provides it, not with a bare find_* error. Fakes each absence without touching the machine:
# a libclang prefix that does not exist, and a pkg-config search path with nothing in it.
set -u
src=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/hotscan-setup-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fails=0
expect() { # name, expected text, command...
  local name=$1 want=$2; shift 2
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [ $rc -ne 0 ] && grep -qF -- "$want" <<<"$out"; then
    echo "ok   $name"
  else
    echo "FAIL $name (exit $rc; wanted: $want)"; printf '%s\n' "$out" | tail -15; fails=$((fails + 1))
  fi
}
expect "no libclang 19 names libclang-19-dev" "apt-get install libclang-19-dev" \
  cmake -S "$src" -B "$work/a" -DHOTSCAN_LLVM_ROOT="$work/no-llvm"
expect "no jansson names libjansson-dev" "apt-get install libjansson-dev" \
  env PKG_CONFIG_LIBDIR="$work/empty" cmake -S "$src" -B "$work/b"
# The grammars come from npm: an npm that fails (no network) must say what to do instead.
mkdir -p "$work/fakebin" "$work/grammars"
printf '#!/bin/sh\necho "npm ERR! network request failed" >&2\nexit 1\n' >"$work/fakebin/npm"
chmod +x "$work/fakebin/npm"
expect "npm failing names the tarball to download" "registry.npmjs.org/tree-sitter-c/-/tree-sitter-c-0.23.6.tgz" \
  env PATH="$work/fakebin:$PATH" cmake -S "$src" -B "$work/c" -DHOTSCAN_GRAMMAR_DIR="$work/grammars"
# The tests validate reports with the Python module jsonschema: a python3 without it is named.
printf '#!/bin/sh\necho "ModuleNotFoundError: No module named jsonschema" >&2\nexit 1\n' >"$work/fakebin/python3"
chmod +x "$work/fakebin/python3"
expect "no jsonschema names python3-jsonschema" "apt-get install python3-jsonschema" \
  cmake -S "$src" -B "$work/d" -DHOTSCAN_TOOL_python3="$work/fakebin/python3"
echo "$((4 - fails)) passed, $fails failed"
[ $fails -eq 0 ]
