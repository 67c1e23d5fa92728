#!/usr/bin/env bash
# The shell step of the hotato GitHub Action (action.yml): run a suite of conversation tests,
# write the Markdown summary to the job summary, and leave JUnit, the artifacts and the HTML
# report where the upload step finds them. It records hotato's exit code in GITHUB_OUTPUT and
# exits 0, so the upload runs before the action's last step fails the job on a FAIL.
#
# Reads: HOTATO_SUITE (a test file or a folder of tests), HOTATO_AGENT, optional HOTATO_ARGS
# (more flags, split on spaces), HOTATO_OUTPUT_DIR (default $RUNNER_TEMP/hotato), HOTATO_BIN
# (default hotato), and the runner's GITHUB_STEP_SUMMARY and GITHUB_OUTPUT.
set -uo pipefail

suite="${HOTATO_SUITE:?HOTATO_SUITE (the suite input of the action) is required}"
agent="${HOTATO_AGENT:?HOTATO_AGENT (the agent input of the action) is required}"
out_dir="${HOTATO_OUTPUT_DIR:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/hotato}"
bin="${HOTATO_BIN:-hotato}"
read -r -a extra <<< "${HOTATO_ARGS:-}"

mkdir -p "$out_dir"
summary="$out_dir/summary.md"
"$bin" test run "$suite" --agent "$agent" --format markdown \
  --junit "$out_dir/junit.xml" --html "$out_dir/report.html" --out "$out_dir/artifacts" \
  "${extra[@]}" > "$summary" 2> "$out_dir/stderr.txt"
code=$?
cat "$out_dir/stderr.txt" >&2

if [ "$code" -ge 2 ] && [ ! -s "$summary" ]; then
  # refused (2) or an internal error (3): the summary says why instead of a table. The message
  # can quote a file name, which is data: it goes in a fence longer than any run of backticks
  # it holds, so no line of it can close the fence and be read as Markdown.
  longest=$(grep -o '`*' "$out_dir/stderr.txt" | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
  fence='```'
  while [ "${#fence}" -le "$longest" ]; do fence="$fence\`"; done
  {
    echo "### hotato: the run was refused (exit $code)"
    echo
    echo "${fence}text"
    cat "$out_dir/stderr.txt"
    echo
    echo "$fence"
  } > "$summary"
fi
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  cat "$summary" >> "$GITHUB_STEP_SUMMARY"
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  {
    echo "exit-code=$code"
    echo "summary=$summary"
    echo "junit=$out_dir/junit.xml"
    echo "report=$out_dir/report.html"
    echo "artifacts=$out_dir/artifacts"
    echo "output-dir=$out_dir"
  } >> "$GITHUB_OUTPUT"
fi
echo "hotato: exit $code; summary, JUnit, report.html and artifacts in $out_dir"
exit 0
