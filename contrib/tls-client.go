// One HTTPS GET with Go's crypto/tls and net/http, trusting only the CA file given: prints
// "ok BODY" or "error MESSAGE". Used by contrib/tls-clients.py.
//
//	go run contrib/tls-client.go URL CA_FILE TIMEOUT_SECONDS
package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"
)

func main() {
	url, caFile := os.Args[1], os.Args[2]
	secs, _ := strconv.ParseFloat(os.Args[3], 64)
	pem, err := os.ReadFile(caFile)
	if err != nil {
		fmt.Println("error", err)
		return
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(pem)
	client := &http.Client{
		Timeout:   time.Duration(secs * float64(time.Second)),
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}, ForceAttemptHTTP2: true},
	}
	r, err := client.Get(url)
	if err != nil {
		fmt.Println("error", err)
		return
	}
	defer r.Body.Close()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		fmt.Println("error", err)
		return
	}
	fmt.Printf("ok %s", body)
}
