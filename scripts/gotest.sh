#!/usr/bin/env bash
# Runs go test with the given arguments and shows its output as a plain
# `go test` would, followed by a summary of what passed, failed and was
# skipped, and why each skip (cmd/testsummary reads go test -json). The exit
# status is go test's.
set -uo pipefail
go=${GO:-go}
cd "$(dirname "$0")/.."
summary=$(mktemp -d)
trap 'rm -rf "$summary"' EXIT
# Built before the run, so that a summariser that does not build fails here
# instead of swallowing the tests' output.
"$go" build -o "$summary/testsummary" ./cmd/testsummary || exit
"$go" test -json "$@" | "$summary/testsummary"
exit "${PIPESTATUS[0]}"
