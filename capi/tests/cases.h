/* capi/tests/cases.h: the parser's and the chunked decoder's case tables, ported from
 * tests/parser.rs and tests/chunked.rs (same names, inputs and outcomes, in the same order). */
#ifndef CANNED_TEST_CASES_H
#define CANNED_TEST_CASES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "canned.h"

/* A byte string with its length: the inputs hold NUL bytes. */
#define B(s) (const unsigned char *)(s), sizeof(s) - 1

/* What a head must give: the code, and for a complete head its decisions. */
struct parse_case {
    const char *name;
    const unsigned char *input;
    size_t len;
    int want;
    bool keep_alive;
    int framing;
    uint64_t content_length;
    const char *path;
};

#define NONE CANNED_FRAMING_NONE, 0
#define LEN5 CANNED_FRAMING_LENGTH, 5
#define LEN_MAX CANNED_FRAMING_LENGTH, UINT64_MAX
#define CHUNKED CANNED_FRAMING_CHUNKED, 0
#define OK(keep_alive, framing, path) CANNED_COMPLETE, keep_alive, framing, path
#define ERR(e) CANNED_E_##e, false, NONE, NULL
#define PARTIAL CANNED_PARTIAL, false, NONE, NULL

static const struct parse_case PARSE_CASES[] = {
    /* --- realistic clients --- */
    {"wrk", B("GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n"), OK(true, NONE, "/")},
    {"ab -k", B("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\nHost: 127.0.0.1:8080\r\nUser-Agent: ApacheBench/2.3\r\nAccept: */*\r\n\r\n"), OK(true, NONE, "/")},
    {"ab", B("GET /x HTTP/1.0\r\nHost: 127.0.0.1\r\nUser-Agent: ApacheBench/2.3\r\nAccept: */*\r\n\r\n"), OK(false, NONE, "/x")},
    {"curl", B("GET /a/b?c=d HTTP/1.1\r\nHost: localhost:8080\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\n\r\n"), OK(true, NONE, "/a/b")},
    {"curl --http1.0", B("GET / HTTP/1.0\r\nHost: localhost:8080\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\n\r\n"), OK(false, NONE, "/")},
    {"python http.client", B("POST /submit HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAccept-Encoding: identity\r\nContent-Length: 5\r\n\r\n"), OK(true, LEN5, "/submit")},
    {"python requests", B("GET / HTTP/1.1\r\nHost: h\r\nUser-Agent: python-requests/2.31.0\r\nAccept-Encoding: gzip, deflate\r\nAccept: */*\r\nConnection: keep-alive\r\n\r\n"), OK(true, NONE, "/")},
    {"go", B("GET /health HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: Go-http-client/1.1\r\nAccept-Encoding: gzip\r\n\r\n"), OK(true, NONE, "/health")},
    {"browser", B("GET /index.html?x=1 HTTP/1.1\r\nHost: example.com\r\nConnection: keep-alive\r\nCache-Control: max-age=0\r\nsec-ch-ua: \"Chromium\";v=\"119\"\r\nsec-ch-ua-mobile: ?0\r\nUpgrade-Insecure-Requests: 1\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36\r\nAccept: text/html,application/xhtml+xml;q=0.9,*/*;q=0.8\r\nSec-Fetch-Site: none\r\nAccept-Encoding: gzip, deflate, br\r\nAccept-Language: en-US,en;q=0.9\r\nCookie: a=b; c=d\r\n\r\n"), OK(true, NONE, "/index.html")},
    {"node fetch chunked", B("POST /up HTTP/1.1\r\nhost: h\r\nconnection: keep-alive\r\ntransfer-encoding: chunked\r\n\r\n"), OK(true, CHUNKED, "/up")},
    /* --- request line, RFC 9112 §3 --- */
    {"HEAD", B("HEAD / HTTP/1.1\r\nHost: a\r\n\r\n"), OK(true, NONE, "/")},
    {"extension method", B("PURGE / HTTP/1.1\r\nHost: a\r\n\r\n"), OK(true, NONE, "/")},
    {"method with tchar symbols", B("M-S.E_A~R!C#H / HTTP/1.1\r\nHost: a\r\n\r\n"), OK(true, NONE, "/")},
    {"empty method", B(" / HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_METHOD)},
    {"method with (", B("GE(T / HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_METHOD)},
    {"TLS handshake, partial", B("\026\003\001\002\000\001\000\001\374\003\003"), ERR(INVALID_METHOD)},
    {"two spaces after method", B("GET  / HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"two spaces before version", B("GET /  HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_VERSION)},
    {"tab as separator", B("GET\t/ HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_METHOD)},
    {"HTTP/0.9 style", B("GET /\r\n\r\n"), ERR(INVALID_REQUEST_LINE)},
    {"no target", B("GET\r\n\r\n"), ERR(INVALID_REQUEST_LINE)},
    {"target with NUL", B("GET /\000 HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"target with DEL", B("GET /\177 HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"target with UTF-8", B("GET /\303\251 HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"absolute-form", B("GET http://a.example/p/q?x HTTP/1.1\r\nHost: a.example\r\n\r\n"), OK(true, NONE, "/p/q")},
    {"absolute-form no path", B("GET http://a.example HTTP/1.1\r\nHost: a.example\r\n\r\n"), OK(true, NONE, "/")},
    {"absolute-form bad scheme", B("GET 1http://a/ HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"relative target", B("GET index.html HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"CONNECT authority-form", B("CONNECT a.example:443 HTTP/1.1\r\nHost: a.example:443\r\n\r\n"), OK(true, NONE, "")},
    {"CONNECT origin-form", B("CONNECT / HTTP/1.1\r\nHost: a\r\n\r\n"), OK(true, NONE, "/")},
    {"CONNECT without port", B("CONNECT a.example HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"authority-form without CONNECT", B("GET a.example:443 HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"OPTIONS *", B("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n"), OK(true, NONE, "")},
    {"GET *", B("GET * HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    /* --- origin-form = absolute-path [ "?" query ], RFC 9112 §3.2.1, RFC 3986 §3.3, §3.4 --- */
    {"every pchar, / and ?", B("GET /az-AZ09._~!$&'()*+,;=:@/x?q=/?:@!$&'()*+,;=~ HTTP/1.1\r\nHost: a\r\n\r\n"), OK(true, NONE, "/az-AZ09._~!$&'()*+,;=:@/x")},
    {"pct-encoded, either case", B("GET /caf%C3%a9/%2F?x=%20%7e HTTP/1.1\r\nHost: a\r\n\r\n"), OK(true, NONE, "/caf%C3%a9/%2F")},
    {"empty query", B("GET /p? HTTP/1.1\r\nHost: a\r\n\r\n"), OK(true, NONE, "/p")},
    {"double slash path", B("GET //a//b HTTP/1.1\r\nHost: a\r\n\r\n"), OK(true, NONE, "//a//b")},
    {"fragment (RFC 9112 §3.2: never sent)", B("GET /a#frag HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"fragment after query", B("GET /a?b#c HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"backslash", B("GET /a\\b HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"backslash after 16 plain bytes", B("GET /0123456789abcdef\\..\\x HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"% then non-hex", B("GET /%zz HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"% then one hex digit", B("GET /%4g HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"% then one hex digit and SP", B("GET /%4 HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"% at the end", B("GET /a% HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"% in query", B("GET /a?b=100% HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"double quote", B("GET /\"a\" HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"< and >", B("GET /<script> HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"^", B("GET /a^b HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"backquote", B("GET /a`b HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"{ in query", B("GET /a?{} HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"| in query", B("GET /a?b|c HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"brackets in query", B("GET /a?b[]=1 HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"bracket in path", B("GET /[::1] HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"UTF-8 after 8 plain bytes", B("GET /abcdefgh\303\251ijklmnop HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"DEL after 8 plain bytes", B("GET /abcdefgh\177ijklmnop HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"HTAB in target", B("GET /a\tb HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    /* --- absolute-form = http(s) URI, RFC 9112 §3.2.2, RFC 9110 §4.2, RFC 3986 §3.2 --- */
    {"absolute-form port", B("GET http://a.example:8080/p HTTP/1.1\r\nHost: a.example\r\n\r\n"), OK(true, NONE, "/p")},
    {"absolute-form https IPv4", B("GET https://127.0.0.1:8443/p?x HTTP/1.1\r\nHost: a\r\n\r\n"), OK(true, NONE, "/p")},
    {"absolute-form IPv6", B("GET http://[::1]:8080/p HTTP/1.1\r\nHost: a\r\n\r\n"), OK(true, NONE, "/p")},
    {"absolute-form IPvFuture", B("GET http://[v1.fe:x]/ HTTP/1.1\r\nHost: a\r\n\r\n"), OK(true, NONE, "/")},
    {"absolute-form pct-encoded host", B("GET http://a%2Db.example/ HTTP/1.1\r\nHost: a\r\n\r\n"), OK(true, NONE, "/")},
    {"absolute-form query, no path", B("GET http://a.example?x HTTP/1.1\r\nHost: a\r\n\r\n"), OK(true, NONE, "/")},
    {"absolute-form empty host", B("GET http:///p HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"absolute-form only a port", B("GET http://:80/p HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"absolute-form userinfo (RFC 9110 §4.2.4)", B("GET http://u:p@a.example/ HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"absolute-form port not digits", B("GET http://a.example:8o/ HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"absolute-form fragment", B("GET http://a.example/#f HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"absolute-form unclosed IP-literal", B("GET http://[::1/p HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"absolute-form bad IPv6", B("GET http://[1::2::3]/ HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"absolute-form IPv6 zone id", B("GET http://[fe80::1%25eth0]/ HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"absolute-form bracket in path", B("GET http://[::1]/a[b] HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    {"absolute-form backslash host", B("GET http://a\\b/ HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_TARGET)},
    /* --- version, RFC 9112 §2.3, RFC 9110 §15.6.6 --- */
    {"HTTP/1.2", B("GET / HTTP/1.2\r\nHost: a\r\n\r\n"), ERR(UNSUPPORTED_VERSION)},
    {"HTTP/2.0", B("GET / HTTP/2.0\r\nHost: a\r\n\r\n"), ERR(UNSUPPORTED_VERSION)},
    {"HTTP/0.9", B("GET / HTTP/0.9\r\n\r\n"), ERR(UNSUPPORTED_VERSION)},
    {"lower-case http", B("GET / http/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_VERSION)},
    {"HTTP/1.10", B("GET / HTTP/1.10\r\nHost: a\r\n\r\n"), ERR(INVALID_VERSION)},
    {"HTTP/1", B("GET / HTTP/1\r\nHost: a\r\n\r\n"), ERR(INVALID_VERSION)},
    {"PRI (h2 preface)", B("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), ERR(UNSUPPORTED_VERSION)},
    /* --- line endings, RFC 9112 §2.2 --- */
    {"leading CRLF skipped", B("\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n"), OK(true, NONE, "/")},
    {"bare LF request line", B("GET / HTTP/1.1\nHost: a\r\n\r\n"), ERR(BARE_LF)},
    {"bare LF header", B("GET / HTTP/1.1\r\nHost: a\n\r\n"), ERR(BARE_LF)},
    {"bare LF end", B("GET / HTTP/1.1\r\nHost: a\r\n\n"), ERR(BARE_LF)},
    {"leading bare LF", B("\nGET / HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(BARE_LF)},
    {"bare CR in value", B("GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n"), ERR(BARE_CR)},
    {"bare CR in target", B("GET /\r HTTP/1.1\r\nHost: a\r\n\r\n"), ERR(BARE_CR)},
    {"bare CR after version", B("GET / HTTP/1.1\r\rHost: a\r\n\r\n"), ERR(BARE_CR)},
    {"CR in name", B("GET / HTTP/1.1\r\nHo\rst: a\r\n\r\n"), ERR(INVALID_HEADER_NAME)},
    /* --- fields, RFC 9112 §5, RFC 9110 §5.5 --- */
    {"space before colon", B("GET / HTTP/1.1\r\nHost : a\r\n\r\n"), ERR(INVALID_HEADER_NAME)},
    {"empty name", B("GET / HTTP/1.1\r\nHost: a\r\n: x\r\n\r\n"), ERR(INVALID_HEADER_NAME)},
    {"no colon", B("GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n"), ERR(INVALID_HEADER_NAME)},
    {"name with @", B("GET / HTTP/1.1\r\nHost: a\r\nA@b: c\r\n\r\n"), ERR(INVALID_HEADER_NAME)},
    {"obs-fold", B("GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n b\r\n\r\n"), ERR(OBS_FOLD)},
    {"obs-fold tab", B("GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n\tb\r\n\r\n"), ERR(OBS_FOLD)},
    {"NUL in value", B("GET / HTTP/1.1\r\nHost: a\r\nX: a\000b\r\n\r\n"), ERR(INVALID_HEADER_VALUE)},
    {"DEL in value", B("GET / HTTP/1.1\r\nHost: a\r\nX: \177\r\n\r\n"), ERR(INVALID_HEADER_VALUE)},
    {"ESC in value", B("GET / HTTP/1.1\r\nHost: a\r\nX: \033[0m\r\n\r\n"), ERR(INVALID_HEADER_VALUE)},
    {"obs-text in value", B("GET / HTTP/1.1\r\nHost: a\r\nX: caf\351\r\n\r\n"), OK(true, NONE, "/")},
    {"tab and empty value", B("GET / HTTP/1.1\r\nHost: a\r\nX:\t\r\nY:\r\n\r\n"), OK(true, NONE, "/")},
    /* --- Host, RFC 9112 §3.2 --- */
    {"1.1 without Host", B("GET / HTTP/1.1\r\n\r\n"), ERR(MISSING_HOST)},
    {"1.1 with two Host", B("GET / HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n"), ERR(DUPLICATE_HOST)},
    {"1.1 empty Host (RFC 9110 §4.2.1: an empty host is invalid)", B("GET / HTTP/1.1\r\nHost:\r\n\r\n"), ERR(INVALID_HOST)},
    {"1.1 blank Host", B("GET / HTTP/1.1\r\nHost:  \t\r\n\r\n"), ERR(INVALID_HOST)},
    {"1.0 empty Host", B("GET / HTTP/1.0\r\nHost:\r\n\r\n"), ERR(INVALID_HOST)},
    {"Host port without a host", B("GET / HTTP/1.1\r\nHost: :80\r\n\r\n"), ERR(INVALID_HOST)},
    {"1.0 without Host", B("GET / HTTP/1.0\r\n\r\n"), OK(false, NONE, "/")},
    /* --- the fast paths' shapes inside longer tokens: every split must see the whole token --- */
    {"a method ending in GET", B("XGET / HTTP/1.1\r\nHost: a\r\n\r\n"), OK(true, NONE, "/")},
    {"a version ending in HTTP/1.1", B("GET / xHTTP/1.1\r\nHost: a\r\n\r\n"), ERR(INVALID_VERSION)},
    {"a first field ending in Host", B("GET / HTTP/1.1\r\nX-Host: a\r\n\r\n"), ERR(MISSING_HOST)},
    /* --- Host = uri-host [ ":" port ], RFC 9112 §3.2, RFC 3986 §3.2.2, §3.2.3 --- */
    {"Host reg-name, every allowed byte", B("GET / HTTP/1.1\r\nHost: a-Z.0_~!$&'()*+,;=%41\r\n\r\n"), OK(true, NONE, "/")},
    {"Host IPv4 and port", B("GET / HTTP/1.1\r\nHost:  127.0.0.1:8080 \r\n\r\n"), OK(true, NONE, "/")},
    {"Host not an IPv4, still a reg-name", B("GET / HTTP/1.1\r\nHost: 1.2.3.999\r\n\r\n"), OK(true, NONE, "/")},
    {"Host empty port", B("GET / HTTP/1.1\r\nHost: a:\r\n\r\n"), OK(true, NONE, "/")},
    {"Host IPv6 loopback", B("GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n"), OK(true, NONE, "/")},
    {"Host IPv6 full", B("GET / HTTP/1.1\r\nHost: [2001:db8:0:0:1:0:0:ABCD]\r\n\r\n"), OK(true, NONE, "/")},
    {"Host IPv6 with IPv4", B("GET / HTTP/1.1\r\nHost: [::ffff:192.0.2.1]\r\n\r\n"), OK(true, NONE, "/")},
    {"Host IPv6 all zero", B("GET / HTTP/1.1\r\nHost: [::]\r\n\r\n"), OK(true, NONE, "/")},
    {"Host IPvFuture", B("GET / HTTP/1.1\r\nHost: [v7.a:b]:1\r\n\r\n"), OK(true, NONE, "/")},
    {"Host long, _ after 8 bytes", B("GET / HTTP/1.1\r\nHost: abcdefgh_ij.example\r\n\r\n"), OK(true, NONE, "/")},
    {"Host long, slash after 8 bytes", B("GET / HTTP/1.1\r\nHost: abcdefghij/k\r\n\r\n"), ERR(INVALID_HOST)},
    {"Host long, port with a letter", B("GET / HTTP/1.1\r\nHost: 127.0.0.1:80a\r\n\r\n"), ERR(INVALID_HOST)},
    {"Host long, obs-text after 8 bytes", B("GET / HTTP/1.1\r\nHost: abcdefgh\377\r\n\r\n"), ERR(INVALID_HOST)},
    {"Host with space", B("GET / HTTP/1.1\r\nHost: a b\r\n\r\n"), ERR(INVALID_HOST)},
    {"Host with slash", B("GET / HTTP/1.1\r\nHost: a/b\r\n\r\n"), ERR(INVALID_HOST)},
    {"Host with userinfo", B("GET / HTTP/1.1\r\nHost: u@a\r\n\r\n"), ERR(INVALID_HOST)},
    {"Host port not digits", B("GET / HTTP/1.1\r\nHost: a:80a\r\n\r\n"), ERR(INVALID_HOST)},
    {"Host two ports", B("GET / HTTP/1.1\r\nHost: a:1:2\r\n\r\n"), ERR(INVALID_HOST)},
    {"Host bare IPv6", B("GET / HTTP/1.1\r\nHost: ::1\r\n\r\n"), ERR(INVALID_HOST)},
    {"Host bad escape", B("GET / HTTP/1.1\r\nHost: a%4\r\n\r\n"), ERR(INVALID_HOST)},
    {"Host obs-text", B("GET / HTTP/1.1\r\nHost: caf\351\r\n\r\n"), ERR(INVALID_HOST)},
    {"Host list", B("GET / HTTP/1.1\r\nHost: a, b\r\n\r\n"), ERR(INVALID_HOST)},
    {"Host unclosed bracket", B("GET / HTTP/1.1\r\nHost: [::1\r\n\r\n"), ERR(INVALID_HOST)},
    {"Host text after bracket", B("GET / HTTP/1.1\r\nHost: [::1]x\r\n\r\n"), ERR(INVALID_HOST)},
    {"Host IPv6 nine pieces", B("GET / HTTP/1.1\r\nHost: [1:2:3:4:5:6:7:8:9]\r\n\r\n"), ERR(INVALID_HOST)},
    {"Host IPv6 seven pieces", B("GET / HTTP/1.1\r\nHost: [1:2:3:4:5:6:7]\r\n\r\n"), ERR(INVALID_HOST)},
    {"Host IPv6 two ::", B("GET / HTTP/1.1\r\nHost: [1::2::3]\r\n\r\n"), ERR(INVALID_HOST)},
    {"Host IPv6 ::: ", B("GET / HTTP/1.1\r\nHost: [1:::2]\r\n\r\n"), ERR(INVALID_HOST)},
    {"Host IPv6 five hex digits", B("GET / HTTP/1.1\r\nHost: [::12345]\r\n\r\n"), ERR(INVALID_HOST)},
    {"Host IPv6 octet over 255", B("GET / HTTP/1.1\r\nHost: [::1.2.3.256]\r\n\r\n"), ERR(INVALID_HOST)},
    {"Host IPv6 octet leading zero", B("GET / HTTP/1.1\r\nHost: [::1.2.3.04]\r\n\r\n"), ERR(INVALID_HOST)},
    {"Host IPv6 IPv4 not last", B("GET / HTTP/1.1\r\nHost: [1.2.3.4::]\r\n\r\n"), ERR(INVALID_HOST)},
    {"Host IPv4 in brackets", B("GET / HTTP/1.1\r\nHost: [1.2.3.4]\r\n\r\n"), ERR(INVALID_HOST)},
    {"Host IPvFuture without address", B("GET / HTTP/1.1\r\nHost: [v7.]\r\n\r\n"), ERR(INVALID_HOST)},
    {"Host invalid in HTTP/1.0 too", B("GET / HTTP/1.0\r\nHost: a b\r\n\r\n"), ERR(INVALID_HOST)},
    /* --- keep-alive, RFC 9112 §9.3 --- */
    {"1.1 close", B("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"), OK(false, NONE, "/")},
    {"1.1 CLOSE in list", B("GET / HTTP/1.1\r\nHost: a\r\nConnection: Upgrade, CLOSE\r\n\r\n"), OK(false, NONE, "/")},
    {"1.1 close in second field", B("GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n"), OK(false, NONE, "/")},
    {"1.1 closed (not close)", B("GET / HTTP/1.1\r\nHost: a\r\nConnection: closed\r\n\r\n"), OK(true, NONE, "/")},
    {"1.0 keep-alive", B("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"), OK(true, NONE, "/")},
    {"1.0 keep-alive in list", B("GET / HTTP/1.0\r\nConnection: TE , Keep-Alive\r\n\r\n"), OK(true, NONE, "/")},
    {"1.0 keep-alive and close", B("GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n"), OK(false, NONE, "/")},
    /* --- Content-Length, RFC 9112 §6.3, RFC 9110 §8.6 --- */
    {"CL 0", B("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n"), OK(true, NONE, "/")},
    {"CL 5", B("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\n"), OK(true, LEN5, "/")},
    {"CL leading zeros", B("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 005\r\n\r\n"), OK(true, LEN5, "/")},
    {"CL same twice", B("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n"), OK(true, LEN5, "/")},
    {"CL same list", B("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\n\r\n"), OK(true, LEN5, "/")},
    {"CL differ", B("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n"), ERR(CONFLICTING_CONTENT_LENGTH)},
    {"CL list differ", B("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 6\r\n\r\n"), ERR(CONFLICTING_CONTENT_LENGTH)},
    {"CL +5", B("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\n"), ERR(INVALID_CONTENT_LENGTH)},
    {"CL -1", B("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n"), ERR(INVALID_CONTENT_LENGTH)},
    {"CL hex", B("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x5\r\n\r\n"), ERR(INVALID_CONTENT_LENGTH)},
    {"CL empty", B("POST / HTTP/1.1\r\nHost: a\r\nContent-Length:\r\n\r\n"), ERR(INVALID_CONTENT_LENGTH)},
    {"CL empty member", B("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5,\r\n\r\n"), ERR(INVALID_CONTENT_LENGTH)},
    {"CL inner space", B("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1 2\r\n\r\n"), ERR(INVALID_CONTENT_LENGTH)},
    {"CL overflow", B("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 18446744073709551616\r\n\r\n"), ERR(INVALID_CONTENT_LENGTH)},
    {"CL u64 max", B("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 18446744073709551615\r\n\r\n"), OK(true, LEN_MAX, "/")},
    /* --- Transfer-Encoding, RFC 9112 §6.1, §6.3 --- */
    {"TE chunked", B("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"), OK(true, CHUNKED, "/")},
    {"TE CHUNKED", B("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: CHUNKED\r\n\r\n"), OK(true, CHUNKED, "/")},
    {"TE gzip, chunked", B("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"), OK(true, CHUNKED, "/")},
    {"TE in two fields", B("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n"), OK(true, CHUNKED, "/")},
    {"TE chunked, gzip", B("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n"), ERR(CHUNKED_NOT_FINAL)},
    {"TE chunked twice", B("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, chunked\r\n\r\n"), ERR(CHUNKED_NOT_FINAL)},
    {"TE gzip only", B("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n"), ERR(CHUNKED_NOT_FINAL)},
    {"TE empty", B("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:\r\n\r\n"), ERR(CHUNKED_NOT_FINAL)},
    {"TE unknown", B("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: br, chunked\r\n\r\n"), ERR(UNKNOWN_TRANSFER_CODING)},
    {"TE unknown, then chunked in a second field", B("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: br\r\nTransfer-Encoding: chunked\r\n\r\n"), ERR(UNKNOWN_TRANSFER_CODING)},
    {"TE unknown alone", B("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: identity\r\n\r\n"), ERR(UNKNOWN_TRANSFER_CODING)},
    /* 400 before 501: chunked present but not final makes the length unknowable (§6.3 (4)) */
    {"TE chunked, identity: 400 not 501", B("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, identity\r\n\r\n"), ERR(CHUNKED_NOT_FINAL)},
    {"TE br, chunked, gzip: 400 not 501", B("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: br, chunked, gzip\r\n\r\n"), ERR(CHUNKED_NOT_FINAL)},
    {"TE chunked then identity field: 400", B("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n"), ERR(CHUNKED_NOT_FINAL)},
    {"TE chunked then br, chunked field: 400", B("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: br, chunked\r\n\r\n"), ERR(CHUNKED_NOT_FINAL)},
    {"TE chunked;x with unknown: 400", B("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: br, chunked;x=1\r\n\r\n"), ERR(CHUNKED_NOT_FINAL)},
    {"TE unknown with CL: 400", B("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: br\r\n\r\n"), ERR(CONTENT_LENGTH_WITH_TRANSFER_ENCODING)},
    {"TE unknown then a bad field: 400", B("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: br\r\nBad Name: x\r\n\r\n"), ERR(INVALID_HEADER_NAME)},
    {"TE unknown without Host: 400", B("POST / HTTP/1.1\r\nTransfer-Encoding: br\r\n\r\n"), ERR(MISSING_HOST)},
    {"TE unknown in HTTP/1.0: 400", B("POST / HTTP/1.0\r\nTransfer-Encoding: br\r\n\r\n"), ERR(TRANSFER_ENCODING_HTTP10)},
    {"TE chunked with param", B("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked;q=1\r\n\r\n"), ERR(CHUNKED_NOT_FINAL)},
    {"TE xchunked", B("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: xchunked\r\n\r\n"), ERR(UNKNOWN_TRANSFER_CODING)},
    {"TE chunked in quotes", B("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: \"chunked\"\r\n\r\n"), ERR(UNKNOWN_TRANSFER_CODING)},
    {"TE vertical tab", B("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:\013chunked\r\n\r\n"), ERR(INVALID_HEADER_VALUE)},
    {"TE with CL", B("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"), ERR(CONTENT_LENGTH_WITH_TRANSFER_ENCODING)},
    {"TE in HTTP/1.0", B("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n"), ERR(TRANSFER_ENCODING_HTTP10)},
    {"TE space before colon", B("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding : chunked\r\n\r\n"), ERR(INVALID_HEADER_NAME)},
    /* --- Expect, RFC 9110 §10.1.1 --- */
    {"Expect 100-continue", B("PUT / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-Continue\r\n\r\n"), OK(true, LEN5, "/")},
    {"Expect other", B("PUT / HTTP/1.1\r\nHost: a\r\nExpect: 200-ok\r\n\r\n"), ERR(EXPECTATION_FAILED)},
    /* --- incomplete --- */
    {"empty", B(""), PARTIAL},
    {"only CRLF", B("\r\n"), PARTIAL},
    {"partial head", B("GET / HTTP/1.1\r\nHost: a\r\n"), PARTIAL},
};

#undef ERR

/* What a chunked body must give: the code, and the bytes consumed (for CANNED_PARTIAL: all). */
struct chunk_case {
    const char *name;
    const unsigned char *input;
    size_t len;
    int want;
    size_t consumed;
};

#define DONE(n) CANNED_COMPLETE, n
#define MORE CANNED_PARTIAL, SIZE_MAX
#define ERR(e) CANNED_E_##e, 0

static const struct chunk_case CHUNK_CASES[] = {
    {"empty body", B("0\r\n\r\n"), DONE(5)},
    {"one chunk", B("5\r\nhello\r\n0\r\n\r\n"), DONE(15)},
    {"two chunks", B("3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"), DONE(20)},
    {"next request follows", B("1\r\na\r\n0\r\n\r\nGET / HTTP/1.1\r\n"), DONE(11)},
    {"upper hex", B("A\r\n0123456789\r\n0\r\n\r\n"), DONE(20)},
    {"lower hex", B("a\r\n0123456789\r\n0\r\n\r\n"), DONE(20)},
    {"leading zeros", B("0005\r\nhello\r\n000\r\n\r\n"), DONE(20)},
    {"extension", B("5;name=value\r\nhello\r\n0\r\n\r\n"), DONE(26)},
    {"quoted extension", B("5;n=\"a b\"\r\nhello\r\n0\r\n\r\n"), DONE(23)},
    {"BWS before ;", B("5 ;n\r\nhello\r\n0\r\n\r\n"), DONE(18)},
    {"ext on last chunk", B("0;x\r\n\r\n"), DONE(7)},
    {"trailers", B("0\r\nX-Sum: 1\r\nY: 2\r\n\r\n"), DONE(21)},
    {"data with CRLF inside", B("4\r\n\r\n\r\n\r\n0\r\n\r\n"), DONE(14)},
    {"body hides a request", B("1a\r\nGET /smuggled HTTP/1.1\r\n\r\n\r\n0\r\n\r\n"), DONE(37)},
    {"incomplete size", B("5"), MORE},
    {"incomplete data", B("5\r\nhel"), MORE},
    {"incomplete trailers", B("0\r\nX: 1\r\n"), MORE},
    {"no size", B("\r\n"), ERR(INVALID_CHUNK_SIZE)},
    {"non-hex size", B("g\r\n"), ERR(INVALID_CHUNK_SIZE)},
    {"0x prefix", B("0x5\r\nhello\r\n0\r\n\r\n"), ERR(INVALID_CHUNK_SIZE)},
    {"negative size", B("-5\r\n"), ERR(INVALID_CHUNK_SIZE)},
    {"space before size", B(" 5\r\n"), ERR(INVALID_CHUNK_SIZE)},
    {"space after size", B("5 \r\nhello\r\n"), ERR(INVALID_CHUNK_EXT)},
    {"overflow", B("fffffffffffffffff\r\n"), ERR(CHUNK_SIZE_OVERFLOW)},
    {"2^64 + 5 wraps elsewhere", B("10000000000000005\r\nhello\r\n"), ERR(CHUNK_SIZE_OVERFLOW)},
    {"bare LF after size", B("5\nhello\r\n0\r\n\r\n"), ERR(BARE_LF)},
    {"bare CR after size", B("5\rhello\r\n"), ERR(BARE_CR)},
    {"bare LF after data", B("5\r\nhello\n0\r\n\r\n"), ERR(INVALID_CHUNK_DATA)},
    {"data too long", B("5\r\nhello!\r\n0\r\n\r\n"), ERR(INVALID_CHUNK_DATA)},
    {"data CR then not LF", B("5\r\nhello\rX"), ERR(BARE_CR)},
    {"bare LF in ext", B("5;a\nhello\r\n"), ERR(BARE_LF)},
    {"CTL in ext", B("5;a\001\r\nhello\r\n"), ERR(INVALID_CHUNK_EXT)},
    /* --- chunk-ext = *( BWS ";" BWS name [ BWS "=" BWS ( token / quoted-string ) ] ), §7.1.1 --- */
    {"ext name only, several", B("5;a;b;c\r\nhello\r\n0\r\n\r\n"), DONE(21)},
    {"ext BWS everywhere it is allowed", B("5 \t; a = b ;\tc\t=\t\"d\" ;e\r\nhello\r\n0\r\n\r\n"), DONE(37)},
    {"ext token value, every tchar", B("1;n=!#$%&'*+-.^_`|~09aZ\r\na\r\n0\r\n\r\n"), DONE(33)},
    {"ext quoted-pair and specials", B("1;n=\"a\\\"b\\\\c;d=e,\t\377\"\r\na\r\n0\r\n\r\n"), DONE(30)},
    {"ext empty quoted-string", B("1;n=\"\"\r\na\r\n0\r\n\r\n"), DONE(16)},
    {"ext on last chunk with value", B("0;n=\"v\"\r\n\r\n"), DONE(11)},
    {"bare ;", B("5;\r\nhello\r\n"), ERR(INVALID_CHUNK_EXT)},
    {"bare ; on last chunk", B("0;\r\n\r\n"), ERR(INVALID_CHUNK_EXT)},
    {"; then BWS only", B("5; \r\nhello\r\n"), ERR(INVALID_CHUNK_EXT)},
    {"empty extension between ;", B("5;a;;b\r\nhello\r\n"), ERR(INVALID_CHUNK_EXT)},
    {"= without name", B("5;=b\r\nhello\r\n"), ERR(INVALID_CHUNK_EXT)},
    {"name with /", B("5;a/b\r\nhello\r\n"), ERR(INVALID_CHUNK_EXT)},
    {"name with @", B("5;a@b=c\r\nhello\r\n"), ERR(INVALID_CHUNK_EXT)},
    {"name with obs-text", B("5;caf\351\r\nhello\r\n"), ERR(INVALID_CHUNK_EXT)},
    {"name with ,", B("5;a,b\r\nhello\r\n"), ERR(INVALID_CHUNK_EXT)},
    {"= and no value", B("5;a=\r\nhello\r\n"), ERR(INVALID_CHUNK_EXT)},
    {"two values", B("5;a=b=c\r\nhello\r\n"), ERR(INVALID_CHUNK_EXT)},
    {"token value with (", B("5;a=b(c\r\nhello\r\n"), ERR(INVALID_CHUNK_EXT)},
    {"space inside a name", B("5;a b\r\nhello\r\n"), ERR(INVALID_CHUNK_EXT)},
    {"BWS before CRLF after name", B("5;a \r\nhello\r\n"), ERR(INVALID_CHUNK_EXT)},
    {"BWS before CRLF after value", B("5;a=b\t\r\nhello\r\n"), ERR(INVALID_CHUNK_EXT)},
    {"unterminated quoted-string", B("5;a=\"bc\r\nhello\r\n"), ERR(INVALID_CHUNK_EXT)},
    {"quoted-string, bare LF inside", B("5;a=\"b\nhello\r\n"), ERR(BARE_LF)},
    {"quoted-string, CTL inside", B("5;a=\"b\001\"\r\nhello\r\n"), ERR(INVALID_CHUNK_EXT)},
    {"quoted-string, DEL inside", B("5;a=\"b\177\"\r\nhello\r\n"), ERR(INVALID_CHUNK_EXT)},
    {"quoted-pair escaping a CTL", B("5;a=\"\\\001\"\r\nhello\r\n"), ERR(INVALID_CHUNK_EXT)},
    {"quoted-pair escaping CR", B("5;a=\"\\\r\nhello\r\n"), ERR(INVALID_CHUNK_EXT)},
    {"text after the closing quote", B("5;a=\"b\"c\r\nhello\r\n"), ERR(INVALID_CHUNK_EXT)},
    {"quote inside a token value", B("5;a=b\"c\"\r\nhello\r\n"), ERR(INVALID_CHUNK_EXT)},
    {"bare LF ending", B("0\r\n\n"), ERR(BARE_LF)},
    {"bare CR ending", B("0\r\n\rX"), ERR(BARE_CR)},
    {"trailer obs-fold", B("0\r\nX: 1\r\n 2\r\n\r\n"), ERR(INVALID_TRAILER)},
    {"trailer without colon", B("0\r\nX\r\n\r\n"), ERR(BARE_CR)},
    {"trailer bare LF", B("0\r\nX: 1\n\r\n"), ERR(BARE_LF)},
    {"trailer NUL", B("0\r\nX: \000\r\n\r\n"), ERR(INVALID_TRAILER)},
};

#undef B
#undef NONE
#undef LEN5
#undef LEN_MAX
#undef CHUNKED
#undef OK
#undef ERR
#undef PARTIAL
#undef DONE
#undef MORE

#endif
