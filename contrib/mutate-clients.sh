#!/usr/bin/env bash
# How real HTTP clients react to each variant of the malformed-response catalogue: for every id
# in the README's catalogue table, start `canned --mutate-id ID` on a loopback port and send one
# request from each client installed here (curl, Python's http.client, node's fetch, Go's
# net/http), each with a 5-second timeout. Prints a Markdown table: per client, "accept" (with
# the status and body length it reported), "reject" (with its error), or "hang" (the timeout
# fired). `head-with-body` is requested with HEAD, every other id with GET.
#
#   contrib/mutate-clients.sh            # all ids
#   contrib/mutate-clients.sh cl-hex te-and-cl
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --bin canned >&2
bin=target/release/canned
work="$(mktemp -d)"
trap 'rm -rf "$work"; [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null || true' EXIT
timeout_s=5

if [ $# -gt 0 ]; then
    ids=("$@")
else
    mapfile -t ids < <(sed -n '/^### Malformed-response catalogue/,/^## /s/^| `\([a-z0-9-]*\)` .*/\1/p' README.md)
fi

clients=()
command -v curl >/dev/null && clients+=(curl)
command -v python3 >/dev/null && clients+=(python)
command -v node >/dev/null && clients+=(node)
command -v go >/dev/null && clients+=(go)
absent=()
for c in curl python node go; do
    [[ " ${clients[*]} " == *" $c "* ]] || absent+=("$c")
done

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
    mkdir -p "$work/goclient"
    cat >"$work/goclient/main.go" <<'GO'
package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"
)

func main() {
	t, _ := strconv.Atoi(os.Args[3])
	c := &http.Client{Timeout: time.Duration(t) * time.Second}
	req, _ := http.NewRequest(os.Args[2], os.Args[1], nil)
	r, err := c.Do(req)
	if err == nil {
		var body []byte
		body, err = io.ReadAll(r.Body)
		if err == nil {
			fmt.Printf("accept %d, %d B\n", r.StatusCode, len(body))
			return
		}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		fmt.Println("hang")
		return
	}
	fmt.Printf("reject (%T)\n", errors.Unwrap(err))
}
GO
    (cd "$work/goclient" && go mod init goclient >/dev/null 2>&1 && go build -o client . >&2)
fi

run_client() { # client port method -> one cell
    local url="http://127.0.0.1:$2/"
    case "$1" in
        curl)
            local flag=() code out
            [ "$3" = HEAD ] && flag=(-I)
            set +e
            out="$(curl -sS "${flag[@]}" -m "$timeout_s" -o /dev/null -w '%{http_code}, %{size_download} B' "$url" 2>/dev/null)"
            code=$?
            set -e
            case $code in
                0) echo "accept $out" ;;
                28) echo "hang" ;;
                *) echo "reject (exit $code)" ;;
            esac
            ;;
        python) python3 "$work/client.py" 127.0.0.1 "$2" "$3" "$timeout_s" ;;
        node) node "$work/client.mjs" "$url" "$3" "$timeout_s" 2>/dev/null ;;
        go) "$work/goclient/client" "$url" "$3" "$timeout_s" ;;
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
    "$bin" --listen 127.0.0.1:0 --workers 1 --no-date --mutate-id "$id" 2>"$work/err" &
    pid=$!
    port=""
    for _ in $(seq 100); do
        port="$(sed -n 's/^canned listening on 127.0.0.1:\([0-9]*\) .*/\1/p' "$work/err")"
        [ -n "$port" ] && break
        sleep 0.05
    done
    [ -n "$port" ] || { echo "canned did not start for $id" >&2; cat "$work/err" >&2; exit 1; }
    method=GET
    [ "$id" = head-with-body ] && method=HEAD
    row="| \`$id\` |"
    for c in "${clients[@]}"; do
        row+=" $(run_client "$c" "$port" "$method") |"
    done
    echo "$row"
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    pid=""
done
if [ ${#absent[@]} -gt 0 ]; then
    echo
    echo "Not installed here: ${absent[*]}."
fi
