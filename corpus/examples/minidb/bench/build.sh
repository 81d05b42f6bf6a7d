#!/bin/sh
# Builds bench/validate_driver from the example's request path (server.c, trx.c), for
# `hotscan validate --build 'sh bench/build.sh' --bench 'bench/validate_driver N'`.
set -e
cd "$(dirname "$0")/.."
${CC:-cc} -O2 -o bench/validate_driver bench/validate_driver.c server.c trx.c
