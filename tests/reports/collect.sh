#!/usr/bin/env bash
# collect.sh - stands in for hotscan in a test, so that every JSON document the test makes
# hotscan write can be checked against its schema afterwards (with_reports.sh sets it up).
#
# Runs $HOTSCAN_COLLECT_REAL with the same arguments, standard streams and exit status. When
# the command writes JSON (scan or judge with --format json, rules --format json), the file it
# wrote (-o FILE, or standard output when that is a regular file) is copied into
# $HOTSCAN_COLLECT_DIR with the command beside it. Any other command is exec'd, so that
# signals and process trees are exactly the real binary's.
real=${HOTSCAN_COLLECT_REAL:?collect.sh: HOTSCAN_COLLECT_REAL is not set}
dir=${HOTSCAN_COLLECT_DIR:?collect.sh: HOTSCAN_COLLECT_DIR is not set}

command=scan
case ${1-} in
  scan | judge | rules) command=$1 ;;
  -* | */* | *.*) command=scan ;; # hotscan PATH...: the scan
  *) exec "$real" "$@" ;;
esac
json=no output=
prev=
for word in "$@"; do
  [ "$word" = -- ] && break # the compiler flags follow
  case $prev in
    --format) [ "$word" = json ] && json=yes ;;
    -o | --output) output=$word ;;
  esac
  case $word in
    --format=json) json=yes ;;
    --output=*) output=${word#--output=} ;;
  esac
  prev=$word
done
[ $json = yes ] || exec "$real" "$@"
if [ -z "$output" ] || [ "$output" = - ]; then
  output=$(readlink /proc/$$/fd/1 2>/dev/null)
fi
"$real" "$@"
status=$?
if [ -n "$output" ] && [ -f "$output" ] && [ -s "$output" ] && [ "$(head -c 1 "$output")" = "{" ]; then
  copy=$(mktemp "$dir/$command-XXXXXX") && cp "$output" "$copy.json" &&
    printf '%s %s (in %s, exit %s)\n' "$command" "$*" "$PWD" "$status" >"$copy.cmd"
  rm -f "$copy"
fi
exit $status
