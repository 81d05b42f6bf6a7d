# tests/cli/check.sh - the counters and check() the CLI test scripts share (sourced, not run).
# check NAME COMMAND...: counts a pass when COMMAND succeeds, else prints "FAIL: NAME".
# checks_done: prints the counts and fails when any check did.
passed=0
failed=0

check() { # name, then a command that must succeed
    local name=$1
    shift
    if "$@"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $name"
    fi
}

checks_done() {
    echo "$passed passed, $failed failed"
    test "$failed" -eq 0
}
