#!/usr/bin/env bash
# HTTP/2 benchmark: canned against nginx (`listen ... http2`, cleartext) and hyper's HTTP/2
# server (benches/hyper-peer, binary hyper-peer-h2), all with prior knowledge, measured
# interleaved in one run on this machine.
#
#   benches/h2.sh                   # 3 rounds of 200,000 requests per load (about 2 minutes)
#   ROUNDS=1 N=50000 benches/h2.sh  # quick look
#   BASE=PATH benches/h2.sh         # also another canned build (an earlier commit's), side by side
#
# With BASE, that binary is measured as one more server (`base`), interleaved with the others
# in the same rounds, and the CPU per request of this tree's canned and of the base are printed
# with their ratio (canned/base).
#
# One worker each, the server pinned to CPU 0 and h2load to CPU 1 (taskset). Loads:
# `h2load -c 100 -m 10` and `-m 100`, a fixed request count each, so every run ends by itself.
# Columns: requests/s (h2load's), the server's CPU per request in µs (utime + stime from
# /proc/PID/stat around the run) and, with perf, its syscalls per request (one more run each). Prints a Markdown table, the ratios canned/nginx and
# canned/hyper and the goals (CPU per request at most 0.5x nginx's and 0.7x hyper's), and
# writes them to bench-results/h2-DATE.md. Everything targets 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."

N="${N:-200000}"     # requests per h2load run
ROUNDS="${ROUNDS:-3}" # interleaved rounds; medians are reported
ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)"

source benches/common.sh
require h2.sh h2load curl taskset
if [ -n "${BASE:-}" ] && [ ! -x "$BASE" ]; then
    echo "h2.sh: BASE=$BASE is not an executable canned binary" >&2
    exit 1
fi

echo "building release binaries" >&2
cargo build --release --bin canned >&2
have_hyper=0
if cargo build --release --features http2 --bin hyper-peer-h2 \
    --manifest-path benches/hyper-peer/Cargo.toml >&2; then
    have_hyper=1
else
    echo "skipping hyper: benches/hyper-peer did not build (offline?)" >&2
fi

results="bench-results"
mkdir -p "$results"
out="$results/h2-$(date -u +%Y%m%d-%H%M%S).md"

nginx_conf() { # port
    cat >"$work/nginx-$1.conf" <<EOF
worker_processes 1;
daemon off;
master_process off;
pid $work/nginx-$1.pid;
error_log /dev/null crit;
worker_rlimit_nofile 20000;
events { worker_connections 20000; }
http {
    access_log off;
    # HTTP/2 counts requests per connection against keepalive_requests (1.19.7+).
    keepalive_requests 1000000000;
    keepalive_timeout 600s;
    http2_max_concurrent_streams 128;
    server {
        listen 127.0.0.1:$1 http2;
        location / { default_type text/plain; return 200 "Hello World\n"; }
    }
}
EOF
}

# start NAME PORT: sets LAST_PID, the process to watch for CPU
start() {
    local name="$1" port="$2" log="$work/$1.log"
    case "$name" in
        canned) $PIN_S target/release/canned --listen "127.0.0.1:$port" --workers 1 --quiet >"$log" 2>&1 & ;;
        base) $PIN_S "$BASE" --listen "127.0.0.1:$port" --workers 1 --quiet >"$log" 2>&1 & ;;
        hyper) $PIN_S benches/hyper-peer/target/release/hyper-peer-h2 "$port" >"$log" 2>&1 & ;;
        nginx) nginx_conf "$port"; $PIN_S nginx -c "$work/nginx-$port.conf" -p "$work" >"$log" 2>&1 & ;;
    esac
    LAST_PID=$!
    pids+=("$LAST_PID")
    for _ in $(seq 100); do
        curl -s -o /dev/null --http2-prior-knowledge "http://127.0.0.1:$port/" && return 0
        sleep 0.05
    done
    echo "$name did not start: $(cat "$log")" >&2
    exit 1
}

check_response() { # name port
    local body headers
    body="$(curl -s --http2-prior-knowledge "http://127.0.0.1:$2/"; echo x)"
    headers="$(curl -s -o /dev/null -D - --http2-prior-knowledge "http://127.0.0.1:$2/" | tr -d '\r')"
    [ "$body" = "Hello World
x" ] || { echo "$1: wrong body"; exit 1; }
    grep -q '^HTTP/2 200' <<<"$headers" || { echo "$1: not HTTP/2 200"; exit 1; }
    grep -qi '^content-type: text/plain' <<<"$headers" || { echo "$1: no Content-Type"; exit 1; }
}

clk="$(getconf CLK_TCK)"
servers=()
declare -A port pid
p=18400
candidates=(canned)
[ -n "${BASE:-}" ] && candidates+=(base)
[ "$have_hyper" = 1 ] && candidates+=(hyper)
if need nginx; then candidates+=(nginx); else echo "skipping nginx: not installed" >&2; fi
for s in "${candidates[@]}"; do
    p=$((p + 1))
    port[$s]=$p
    start "$s" "$p"
    pid[$s]=$LAST_PID
    check_response "$s" "$p"
    servers+=("$s")
done
echo "servers: ${servers[*]}; $ROUNDS rounds of $N requests per load" >&2
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"

loads=(10 100)
for round in $(seq "$ROUNDS"); do
    echo "round $round" >&2
    shift_by=$(((round - 1) % ${#servers[@]}))
    order=("${servers[@]:shift_by}" "${servers[@]:0:shift_by}")
    for m in "${loads[@]}"; do
        for s in "${order[@]}"; do
            url="http://127.0.0.1:${port[$s]}/"
            t0="$(cpu_ticks "${pid[$s]}")"
            h2_out="$($PIN_L h2load -n "$N" -c 100 -m "$m" "$url" 2>&1 || true)"
            t1="$(cpu_ticks "${pid[$s]}")"
            ok="$(awk '/^requests:/ {print $8}' <<<"$h2_out")"
            if [ "${ok:-0}" != "$N" ]; then
                echo "$s -m $m: $ok of $N requests succeeded:" >&2
                echo "$h2_out" >&2
                exit 1
            fi
            record "$s" "rps$m" "$(awk '/^finished in/ {print $4}' <<<"$h2_out")"
            record "$s" "ticks$m" "$((t1 - t0))"
            record "$s" "cpu$m" "$(awk -v d=$((t1 - t0)) -v n="$N" -v c="$clk" 'BEGIN {printf "%.2f", d / c * 1e6 / n}')"
        done
    done
done
# Syscalls per request: perf's syscall tracepoints on the server around one run per load
# (counts do not depend on the machine's load, unlike the CPU figures).
if need perf && perf stat -e raw_syscalls:sys_enter -- true >/dev/null 2>&1; then
    for m in "${loads[@]}"; do
        for s in "${servers[@]}"; do
            url="http://127.0.0.1:${port[$s]}/"
            perf stat -x, -e 'syscalls:sys_enter_*' -p "${pid[$s]}" -o "$work/perf-$s-$m" &
            perf_pid=$!
            sleep 0.5
            $PIN_L h2load -n "$N" -c 100 -m "$m" "$url" >/dev/null 2>&1 || true
            kill -INT "$perf_pid"
            wait "$perf_pid" || true
            record "$s" "sys$m" "$(awk -F, -v n="$N" '$1 ~ /^[0-9]+$/ {t += $1} END {printf "%.3f", t / n}' "$work/perf-$s-$m")"
        done
    done
else
    echo "skipping syscall counts: perf with syscall tracepoints is not available" >&2
fi
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

ratio() { # value reference
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2f", a / b }'
}
k() { awk -v a="$1" 'BEGIN { if (a == "-") print "-"; else printf "%.0f", a }'; }
has() { [[ " ${servers[*]} " == *" $1 "* ]]; }
goal() { # text value limit
    awk -v t="$1" -v v="$2" -v l="$3" 'BEGIN {
        if (v == "-" || v == "") { printf "- %s: not measured\n", t; exit }
        printf "- %s: %s <= %s: %s\n", t, v, l, (v + 0 <= l + 0) ? "met" : "NOT met" }'
}
{
    echo "## HTTP/2 benchmark, $(date -u +%Y-%m-%d)"
    echo
    echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(uname -sr); load average $load_before before, $load_after after."
    echo "One worker each; server on CPU 0, h2load on CPU 1. Medians of $ROUNDS interleaved rounds of \`h2load -n $N -c 100 -m M\`."
    echo
    echo "| server | -m 10 req/s | -m 10 CPU µs/req | -m 10 syscalls/req | -m 100 req/s | -m 100 CPU µs/req | -m 100 syscalls/req |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    for s in "${servers[@]}"; do
        echo "| $s | $(k "$(median "$s" rps10)") | $(median "$s" cpu10) | $(median "$s" sys10) | $(k "$(median "$s" rps100)") | $(median "$s" cpu100) | $(median "$s" sys100) |"
    done
    echo
    # utime + stime count whole ticks: a figure of few ticks is coarse (one tick either way).
    echo -n "CPU measured in ticks of 1/$clk s, medians per run:"
    for s in "${servers[@]}"; do
        echo -n " $s $(median "$s" ticks10) (-m 10), $(median "$s" ticks100) (-m 100);"
    done
    echo
    if has base; then
        echo
        echo "Base: \`$BASE\`."
        echo
        for m in "${loads[@]}"; do
            echo "canned/base, -m $m: CPU $(median canned "cpu$m") / $(median base "cpu$m") µs/req = $(ratio "$(median canned "cpu$m")" "$(median base "cpu$m")"); req/s $(ratio "$(median canned "rps$m")" "$(median base "rps$m")")"
        done
    fi
    for ref in nginx hyper; do
        has "$ref" || continue
        echo
        echo "canned/$ref: -m 10 req/s $(ratio "$(median canned rps10)" "$(median $ref rps10)"), CPU $(ratio "$(median canned cpu10)" "$(median $ref cpu10)"); -m 100 req/s $(ratio "$(median canned rps100)" "$(median $ref rps100)"), CPU $(ratio "$(median canned cpu100)" "$(median $ref cpu100)")"
    done
    echo
    echo "Goals:"
    echo
    for m in "${loads[@]}"; do
        has nginx && goal "-m $m: CPU/req at most 0.5x nginx's ($(median nginx "cpu$m") µs)" "$(ratio "$(median canned "cpu$m")" "$(median nginx "cpu$m")")" 0.5
        has hyper && goal "-m $m: CPU/req at most 0.7x hyper's ($(median hyper "cpu$m") µs)" "$(ratio "$(median canned "cpu$m")" "$(median hyper "cpu$m")")" 0.7
    done
} | tee "$out"
echo "written to $out" >&2
