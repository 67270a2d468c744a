#!/usr/bin/env bash
# Runs every fuzz target in the module (func FuzzXxx in a _test.go file) for
# the given time each: `make test` gives each a few seconds, `make fuzz`
# longer. A failing input is written by Go to the package's
# testdata/fuzz/FuzzXxx/ folder, where `go test` replays it from then on:
# commit it with the fix, as the regression test.
set -euo pipefail
fuzztime=${1:-10s}
go=${GO:-go}
cd "$(dirname "$0")/.."
grep -rlE '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' --include='*_test.go' cmd internal | sort | while read -r file; do
	pkg=./$(dirname "$file")
	for name in $(sed -nE 's/^func (Fuzz[A-Za-z0-9_]*)\(f \*testing\.F\).*/\1/p' "$file"); do
		echo "fuzz: $pkg $name for $fuzztime"
		"$go" test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "$pkg"
	done
done
