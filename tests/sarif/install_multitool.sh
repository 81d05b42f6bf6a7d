#!/usr/bin/env bash
# install_multitool.sh PREFIX VERSION - puts the SARIF multitool (npm package
# @microsoft/sarif-multitool-linux, a self-contained .NET executable) under PREFIX and
# checks that it runs. Idempotent: an existing install of VERSION is reused.
#
# The test that validates hotscan's SARIF (sarif_validate) depends on this one. It needs
# node and npm (Debian 12: apt-get install nodejs npm) and libicu72, which the .NET
# runtime inside the multitool loads. HOTSCAN_SARIF_MULTITOOL=/path/to/Sarif.Multitool
# skips the install and uses that binary instead.
set -euo pipefail

prefix=$1
version=$2
package=@microsoft/sarif-multitool-linux

if [ -n "${HOTSCAN_SARIF_MULTITOOL:-}" ]; then
  tool=$HOTSCAN_SARIF_MULTITOOL
else
  tool=$prefix/node_modules/$package/Sarif.Multitool
  installed=$(sed -n 's/^[[:space:]]*"version": *"\([^"]*\)".*/\1/p' \
              "$prefix/node_modules/$package/package.json" 2>/dev/null || true)
  if [ "$installed" != "$version" ] || [ ! -f "$tool" ]; then
    if ! command -v npm >/dev/null; then
      echo "install_multitool: npm is not installed (Debian 12: apt-get install nodejs npm)" >&2
      exit 1
    fi
    echo "install_multitool: npm install $package@$version into $prefix"
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --no-audit --no-fund "$package@$version"
  fi
  # The package's postinstall does this; npm may be configured not to run scripts.
  chmod u+x "$tool"
fi

if ! out=$("$tool" --version 2>&1); then
  echo "install_multitool: $tool does not run:" >&2
  echo "$out" >&2
  echo "install_multitool: it needs libicu72 (apt-get install libicu72)" >&2
  exit 1
fi
echo "install_multitool: $out"
