#!/usr/bin/env bash
# Size against speed: the release binary built four ways, each measured for size and then
# served under the same load, interleaved in one run, with the floor (benches/floor.rs) as
# the reference.
#
#   benches/size-speed.sh                    # 5 rounds of 5 s (about 4 minutes)
#   ROUNDS=1 DUR=2 benches/size-speed.sh     # quick look
#
# Builds: opt-level 3 (the release profile), "s", "z", and, where `cargo +nightly` has the
# rust-src component, the small build (std rebuilt with -Cpanic=immediate-abort, opt-level
# 3). Every server runs one worker pinned to CPU 0, wrk runs on CPU 1. Columns:
#   (a) wrk -t1 -c100 keep-alive, req/s; (e) server CPU per request in (a), µs;
#   (d) wrk -t1 -c256, 16 pipelined requests per write, req/s.
# Everything targets 127.0.0.1 and stops by itself.
set -euo pipefail
cd "$(dirname "$0")/.."

DUR="${DUR:-5}"
ROUNDS="${ROUNDS:-5}"
source benches/common.sh
require size-speed.sh wrk curl taskset

declare -A bin
echo "building" >&2
# opt-level 3 is the release profile itself: its build shares target/release with the floor.
cargo build -q --release --bin canned --example floor >&2
bin[opt-3]="target/release/canned"
for o in s z; do
    CARGO_PROFILE_RELEASE_OPT_LEVEL=$o cargo build -q --release --bin canned --target-dir "target/opt-$o" >&2
    bin["opt-$o"]="target/opt-$o/release/canned"
done
variants=(opt-3 opt-s opt-z)
if contrib/build-small --check >/dev/null 2>&1; then
    bin[small]="$(contrib/build-small dynamic)"
    variants+=(small)
else
    echo "skipping the small build: no cargo +nightly with rust-src" >&2
fi
bin[floor]="target/release/examples/floor"

declare -A port pid
p=18300
for v in "${variants[@]}" floor; do
    p=$((p + 1))
    port[$v]=$p
    if [ "$v" = floor ]; then
        $PIN_S "${bin[$v]}" "$p" >"$work/$v.log" 2>&1 &
    else
        $PIN_S "${bin[$v]}" --listen "127.0.0.1:$p" --workers 1 --quiet >"$work/$v.log" 2>&1 &
    fi
    pid[$v]=$!
    pids+=("$!")
    for _ in $(seq 100); do
        curl -s -o /dev/null "http://127.0.0.1:$p/" && break
        sleep 0.05
    done
    [ "$(curl -s "http://127.0.0.1:$p/")" = "Hello World" ] || { echo "$v did not answer: $(cat "$work/$v.log")"; exit 1; }
done

clk="$(getconf CLK_TCK)"

for round in $(seq "$ROUNDS"); do
    echo "round $round" >&2
    for v in "${variants[@]}" floor; do
        url="http://127.0.0.1:${port[$v]}/"
        t0="$(cpu_ticks "${pid[$v]}")"
        out="$($PIN_L wrk -t1 -c100 -d"${DUR}s" "$url")"
        t1="$(cpu_ticks "${pid[$v]}")"
        reqs="$(awk '/requests in/ {print $1}' <<<"$out")"
        record "$v" a "$(awk '/^Requests\/sec/ {print $2}' <<<"$out")"
        record "$v" e "$(awk -v d=$((t1 - t0)) -v n="$reqs" -v c="$clk" 'BEGIN {printf "%.3f", d / c * 1e6 / n}')"
    done
    for v in "${variants[@]}" floor; do
        out="$($PIN_L wrk -t1 -c256 -d"${DUR}s" -s "$work/pipeline.lua" "http://127.0.0.1:${port[$v]}/")"
        record "$v" d "$(awk '/^Requests\/sec/ {print $2}' <<<"$out")"
    done
done

fa="$(median floor a)"; fd="$(median floor d)"; fe="$(median floor e)"
echo
echo "$ROUNDS rounds of ${DUR}s, medians; ratios against the floor measured in the same run"
echo
echo "| build | size, bytes | (a) req/s | (a) / floor | (e) CPU µs/req | (e) / floor | (d) req/s | (d) / floor |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for v in "${variants[@]}" floor; do
    a="$(median "$v" a)"; e="$(median "$v" e)"; d="$(median "$v" d)"
    size="$(stat -c %s "${bin[$v]}")"
    [ "$v" = floor ] && size="-"
    awk -v v="$v" -v s="$size" -v a="$a" -v e="$e" -v d="$d" -v fa="$fa" -v fe="$fe" -v fd="$fd" 'BEGIN {
        printf "| %s | %s | %.0f | %.2f | %.2f | %.2f | %.0f | %.2f |\n", v, s, a, a / fa, e, e / fe, d, d / fd }'
done
