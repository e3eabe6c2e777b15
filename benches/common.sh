# Shared by benches/load.sh, benches/size-speed.sh, benches/timers.sh and
# contrib/mutate-clients.sh (sourced, not run): tool checks, CPU pinning, a scratch directory
# whose servers are killed on exit, starting canned and waiting for its port, the pipelining wrk
# script and the per-metric record and median helpers.

need() { command -v "$1" >/dev/null 2>&1; }

# require SCRIPT TOOL...: stop with the apt-get line when a tool is missing.
require() {
    local script="$1" t
    shift
    for t in "$@"; do
        need "$t" || { echo "$script: $t is required (apt-get install wrk apache2-utils curl python3 util-linux)"; exit 1; }
    done
}

# One CPU for the server, the other for the load generator, where there are two.
if [ "$(nproc)" -ge 2 ]; then PIN_S="taskset -c 0"; PIN_L="taskset -c 1"; else PIN_S=""; PIN_L=""; fi

work="$(mktemp -d)"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# start_canned LOG COMMAND...: run COMMAND (canned, perhaps behind taskset) in the background,
# its stderr to LOG; set $pid (added to $pids) and $port, from the line `canned listening on
# 127.0.0.1:PORT`, waited for up to 5 s ($port is empty if it does not come or canned exits).
start_canned() {
    local log="$1" gone=""
    shift
    # Emptied here and not only by the redirection below, which the background process may
    # make after the first read: a line left by an earlier server would give its port.
    : >"$log"
    "$@" 2>"$log" &
    pid=$!
    pids+=("$pid")
    port=""
    for _ in $(seq 100); do
        kill -0 "$pid" 2>/dev/null || gone=1
        port="$(sed -n 's/^canned listening on 127.0.0.1:\([0-9]*\) .*/\1/p' "$log")"
        [ -n "$port" ] || [ -n "$gone" ] && break
        sleep 0.05
    done
}

# wrk script: 16 pipelined GETs per write.
cat >"$work/pipeline.lua" <<'LUA'
init = function(args)
  local r = {}
  for i = 1, 16 do r[i] = wrk.format(nil, "/") end
  req = table.concat(r)
end
request = function() return req end
LUA

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
record() { echo "$3" >>"$work/$1.$2"; }  # server metric value
median() {
    [ -s "$work/$1.$2" ] || { echo "-"; return; }
    sort -g "$work/$1.$2" | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; print m}'
}
