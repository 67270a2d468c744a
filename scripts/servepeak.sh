#!/usr/bin/env bash
# servepeak.sh measures the showroom binary as deployed: it starts
# `showroom serve --demo` on a fresh data directory, sends the 12 MP photos
# of ../shared/testdata/large through default_white from CLIENTS concurrent
# clients (PHOTOS in all, one after another per client), and prints the
# server's peak resident memory (VmHWM, start and warm-up included), the
# photos a second and the server's CPU time. Extra arguments go to serve.
#
#   make build models && scripts/servepeak.sh 1 1 6
#   scripts/servepeak.sh 2 2 8 --ort-runs 2
#
# The binary sets its own malloc and GC settings (cmd/showroom/tunables.go)
# unless they are in the environment. docs/benchmarks.md has the readings.
set -euo pipefail

if [ $# -lt 3 ]; then
	echo "usage: $0 WORKERS CLIENTS PHOTOS [serve flags...]" >&2
	exit 2
fi
workers=$1 clients=$2 photos=$3
shift 3
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${SHOWROOM_BIN:-$root/bin/showroom}
large=$root/../shared/testdata/large
for need in "$bin" "$large/cbr_view1.jpg"; do
	[ -e "$need" ] || { echo "$0: $need is missing ('make build'; ../shared beside the project)" >&2; exit 1; }
done

dir=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
"$bin" serve --demo --data-dir "$dir" --addr "127.0.0.1:$port" --workers "$workers" \
	--company-workers "$workers" --rate-limit 0 --log-level warn "$@" >"$dir/out.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT

base=http://127.0.0.1:$port
for _ in $(seq 600); do
	curl -sf "$base/readyz" >/dev/null && grep -q 'Demo login' "$dir/out.log" && break
	kill -0 $pid 2>/dev/null || { cat "$dir/out.log" >&2; exit 1; }
	sleep 0.5
done
user=$(grep -oE 'username [^,]+' "$dir/out.log" | head -1 | cut -d' ' -f2)
pass=$(grep -oE 'password [^ ]+' "$dir/out.log" | head -1 | cut -d' ' -f2)
token=$(curl -sf "$base/auth/login" -H 'Content-Type: application/json' \
	-d "{\"username\":\"$user\",\"password\":\"$pass\",\"system\":\"showroom\"}" | jq -r .access_token)

start=$(date +%s.%N)
clients_pids=()
for c in $(seq "$clients"); do
	(
		for i in $(seq $((photos / clients))); do
			photo=$large/cbr_view$(((i + c) % 3 + 1)).jpg
			code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" \
				--data-binary "@$photo" "$base/v1/process/single/default_white")
			[ "$code" = 200 ] || echo "$photo: status $code" >&2
		done
	) &
	clients_pids+=($!)
done
wait "${clients_pids[@]}"
end=$(date +%s.%N)

peak=$(awk '/VmHWM/ {printf "%.0f MiB", $2 / 1024}' "/proc/$pid/status")
cpu=$(awk -v hz="$(getconf CLK_TCK)" '{printf "%.1f s", ($14 + $15) / hz}' "/proc/$pid/stat")
rate=$(awk -v n="$photos" -v s="$start" -v e="$end" 'BEGIN {printf "%.3f", n / (e - s)}')
echo "workers=$workers clients=$clients photos=$photos $* | peak $peak | $rate photos/s | cpu $cpu | load $(cut -d' ' -f1 /proc/loadavg)"
