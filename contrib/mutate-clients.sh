#!/usr/bin/env bash
# How real HTTP clients react to each variant of the malformed-response catalogue: for every id
# of the catalogue (canned --mutate-list), start `canned --mutate-id ID` on a loopback port and send one
# request from each client installed here (curl, Python's http.client, node's fetch, Go's
# net/http from contrib/mutate-client.go), each with a 5-second timeout. Prints a Markdown
# table: per client, "accept" (with the status and body length it reported), "reject" (with its
# error), or "hang" (the timeout fired). `head-with-body` is requested with HEAD, every other id
# with GET. curl is run with --compressed for the Content-Encoding ids (ce-*), and its cell then
# gives the decoded length; the other clients decode as they do by default (Python's
# http.client never, Go's net/http gzip only, node's fetch gzip and deflate).
# .ci/mutate-clients compares the table with docs/data/mutate-clients.tsv.
#
#   contrib/mutate-clients.sh                 # all ids, every installed client
#   contrib/mutate-clients.sh cl-hex te-and-cl
#   MUTATE_CLIENTS="curl go" contrib/mutate-clients.sh
#   contrib/mutate-clients.sh --versions      # "CLIENT VERSION" for each installed client
# CANNED_BIN=path runs that build instead of building target/release/canned.
set -euo pipefail
cd "$(dirname "$0")/.."
source benches/common.sh
timeout_s=5

# The version of each client, as docs/data/ names it.
version() { # client
    case "$1" in
        curl) curl --version | awk 'NR == 1 {print $2}' ;;
        python) python3 -c 'import platform; print(platform.python_version())' ;;
        node) node --version | sed 's/^v//' ;;
        go) go env GOVERSION | sed 's/^go//' ;;
    esac
}
installed=()
need curl && installed+=(curl)
need python3 && installed+=(python)
need node && installed+=(node)
need go && installed+=(go)
if [ "${1:-}" = --versions ]; then
    for c in "${installed[@]}"; do echo "$c $(version "$c")"; done
    exit 0
fi
read -r -a clients <<<"${MUTATE_CLIENTS:-${installed[*]}}"
for c in "${clients[@]}"; do
    [[ " ${installed[*]} " == *" $c "* ]] || { echo "mutate-clients.sh: $c is not installed" >&2; exit 1; }
done
absent=()
for c in curl python node go; do
    [[ " ${installed[*]} " == *" $c "* ]] || absent+=("$c")
done

if [ -z "${CANNED_BIN:-}" ]; then
    cargo build --release --bin canned >&2
    CANNED_BIN=target/release/canned
fi

if [ $# -gt 0 ]; then
    ids=("$@")
else
    # HTTP/1's ids of the catalogue, in its order.
    mapfile -t ids < <("$CANNED_BIN" --mutate-list | grep -v '^h2-')
fi

cat >"$work/client.py" <<'PY'
import http.client, socket, sys
host, port, method, t = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
try:
    c = http.client.HTTPConnection(host, port, timeout=t)
    c.request(method, "/")
    r = c.getresponse()
    body = r.read()
    print(f"accept {r.status}, {len(body)} B")
except (socket.timeout, TimeoutError):
    print("hang")
except Exception as e:
    print(f"reject ({type(e).__name__})")
PY

cat >"$work/client.mjs" <<'JS'
const [url, method, t] = process.argv.slice(2);
try {
  const r = await fetch(url, { method, signal: AbortSignal.timeout(Number(t) * 1000) });
  const body = await r.arrayBuffer();
  console.log(`accept ${r.status}, ${body.byteLength} B`);
} catch (e) {
  if (e.name === "TimeoutError" || e.name === "AbortError") console.log("hang");
  else console.log(`reject (${e.cause?.code ?? e.cause?.name ?? e.name})`);
}
JS

if [[ " ${clients[*]} " == *" go "* ]]; then
    # Standard library only: builds offline, outside a module, with the Go that is installed.
    GOPROXY=off GOTOOLCHAIN=local go build -o "$work/goclient" contrib/mutate-client.go >&2
fi

# A client still running 5 s after its own timeout is killed, and its cell says "hang".
bounded() { # command...
    local code=0
    timeout -k 1 $((timeout_s + 5)) "$@" || code=$?
    case $code in
        0) ;;
        124 | 137) echo "hang" ;;
        *) echo "client failed (exit $code)" ;;
    esac
}

run_client() { # client port method id -> one cell
    local url="http://127.0.0.1:$2/"
    case "$1" in
        curl)
            local flag=() code=0 out
            [ "$3" = HEAD ] && flag=(-I)
            if [[ "$4" == ce-* ]]; then
                # Decoded (curl decodes only when asked to): the length is what it wrote.
                rm -f "$work/curl.body"
                out="$(curl -sS --compressed -m "$timeout_s" -o "$work/curl.body" -w '%{http_code}' "$url" 2>/dev/null)" || code=$?
                out="$out, $(cat "$work/curl.body" 2>/dev/null | wc -c) B"
            else
                out="$(curl -sS "${flag[@]}" -m "$timeout_s" -o /dev/null -w '%{http_code}, %{size_download} B' "$url" 2>/dev/null)" || code=$?
            fi
            case $code in
                0) echo "accept $out" ;;
                28) echo "hang" ;;
                *) echo "reject (exit $code)" ;;
            esac
            ;;
        python) bounded python3 "$work/client.py" 127.0.0.1 "$2" "$3" "$timeout_s" ;;
        node) bounded node "$work/client.mjs" "$url" "$3" "$timeout_s" 2>/dev/null ;;
        # Go's transport logs bytes after a response ("Unsolicited response") to stderr.
        go) bounded "$work/goclient" "$url" "$3" "$timeout_s" 2>/dev/null ;;
    esac
}

header="| id |"
rule="|---|"
for c in "${clients[@]}"; do
    header+=" $c |"
    rule+="---|"
done
echo "$header"
echo "$rule"
for id in "${ids[@]}"; do
    start_canned "$work/err" "$CANNED_BIN" --listen 127.0.0.1:0 --workers 1 --no-date --mutate-id "$id"
    [ -n "$port" ] || { echo "canned did not start for $id" >&2; cat "$work/err" >&2; exit 1; }
    method=GET
    [ "$id" = head-with-body ] && method=HEAD
    row="| \`$id\` |"
    for c in "${clients[@]}"; do
        row+=" $(run_client "$c" "$port" "$method" "$id") |"
    done
    # canned must still be running: a cell that says "refused" is about canned, not the client.
    kill "$pid" 2>/dev/null || { echo "canned exited during $id:" >&2; cat "$work/err" >&2; exit 1; }
    wait "$pid" 2>/dev/null || true
    pids=()
    echo "$row"
done
if [ ${#absent[@]} -gt 0 ]; then
    echo
    echo "Not installed here: ${absent[*]}."
fi
