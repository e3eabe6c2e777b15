// Go's net/http column of contrib/mutate-clients.sh: one request with the default transport
// and a client timeout, then one line: "accept STATUS, N B", "reject (ERROR)" or "hang".
// Standard library only, so that `go build mutate-client.go` works offline, outside a module.
//
//	mutate-client URL METHOD TIMEOUT_SECONDS
package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: mutate-client URL METHOD TIMEOUT_SECONDS")
		os.Exit(2)
	}
	secs, err := strconv.Atoi(os.Args[3])
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate-client: TIMEOUT_SECONDS:", err)
		os.Exit(2)
	}
	c := &http.Client{Timeout: time.Duration(secs) * time.Second}
	req, err := http.NewRequest(os.Args[2], os.Args[1], nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate-client:", err)
		os.Exit(2)
	}
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
	fmt.Printf("reject (%s)\n", cause(err))
}

// cause is the innermost error's text without the bytes Go quotes after it (the offending
// value, the line that failed), so that a cell names the error in a few words, as the other
// clients' exception names and error codes do. What wraps it says only the method and URL
// (url.Error) and, for an error in the head, "HTTP/1.x transport connection broken" (a
// message, not a wrapper, in Go's transport).
func cause(err error) string {
	for {
		inner := errors.Unwrap(err)
		if inner == nil {
			break
		}
		err = inner
	}
	s := strings.TrimPrefix(err.Error(), "net/http: HTTP/1.x transport connection broken: ")
	// textproto's "malformed MIME header initial line: " is followed by the line unquoted.
	if i := strings.Index(s, " line: "); i >= 0 {
		s = s[:i+len(" line")]
	}
	if i := strings.IndexAny(s, "\";"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimRight(s, ": ")
}
