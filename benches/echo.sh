#!/usr/bin/env bash
# Echo benchmark: canned's `--echo /anything` against an /anything echo written with Python's
# http.server (benches/echo_peer.py; go-httpbin needs a newer Go than Debian's), one server
# process pinned to CPU 0, wrk on CPU 1, POST bodies of 100 bytes and 64 KiB, interleaved
# rounds in one run. Prints requests per second and the server's CPU time per request
# (user + system, from /proc), medians over the rounds.
#
#   benches/echo.sh                 # 3 rounds of 5 s (about 2 minutes)
#   ROUNDS=1 DUR=2 benches/echo.sh  # quick look
set -euo pipefail
cd "$(dirname "$0")/.."
DUR="${DUR:-5}"
ROUNDS="${ROUNDS:-3}"
CONNS="${CONNS:-8}"
source benches/common.sh
require echo.sh wrk curl python3 taskset

cargo build --release --bin canned >&2
clk="$(getconf CLK_TCK)"

for size in 100 65536; do
    python3 -c "import sys; sys.stdout.write('x' * $size)" >"$work/body-$size"
    cat >"$work/post-$size.lua" <<LUA
local f = io.open("$work/body-$size", "rb")
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "text/plain"
LUA
done

declare -A port pid
start_canned "$work/canned.log" $PIN_S target/release/canned --listen 127.0.0.1:0 --workers 1 \
    --echo /anything --no-date
[ -n "$port" ] || { echo "echo.sh: canned did not start: $(cat "$work/canned.log")"; exit 1; }
port[canned]=$port
pid[canned]=$pid
port[python]=18391
$PIN_S python3 benches/echo_peer.py "${port[python]}" >"$work/python.log" 2>&1 &
pid[python]=$!
pids+=("${pid[python]}")
for _ in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:${port[python]}/anything" && break
    sleep 0.05
done
for s in canned python; do
    # Both echo the body: check it before measuring.
    curl -s -d 'hello-echo' "http://127.0.0.1:${port[$s]}/anything" | grep -q hello-echo ||
        { echo "echo.sh: $s does not echo the body"; exit 1; }
done

for round in $(seq "$ROUNDS"); do
    for size in 100 65536; do
        for s in canned python; do
            before="$(awk '{print $14 + $15}' "/proc/${pid[$s]}/stat")"
            out="$($PIN_L wrk -t1 -c"$CONNS" -d"${DUR}s" -s "$work/post-$size.lua" \
                "http://127.0.0.1:${port[$s]}/anything")"
            after="$(awk '{print $14 + $15}' "/proc/${pid[$s]}/stat")"
            reqs="$(awk '/requests in/ {print $1}' <<<"$out")"
            grep -q 'Non-2xx' <<<"$out" && { echo "echo.sh: $s answered non-2xx: $out"; exit 1; }
            rps="$(awk '/^Requests\/sec/ {printf "%.0f", $2}' <<<"$out")"
            us="$(awk -v t=$((after - before)) -v c="$clk" -v n="$reqs" 'BEGIN {printf "%.2f", t / c * 1e6 / n}')"
            record "$s" "rps-$size" "$rps"
            record "$s" "us-$size" "$us"
            echo "round $round, $size bytes, $s: $rps requests/s, $us µs CPU per request" >&2
        done
    done
done

echo "| POST body | canned req/s | python req/s | canned CPU µs/req | python CPU µs/req | CPU ratio python/canned |"
echo "|---|---:|---:|---:|---:|---:|"
for size in 100 65536; do
    c="$(median canned "us-$size")"
    p="$(median python "us-$size")"
    ratio="$(awk -v c="$c" -v p="$p" 'BEGIN {printf "%.1fx", p / c}')"
    echo "| $size bytes | $(median canned "rps-$size") | $(median python "rps-$size") | $c | $p | $ratio |"
done
