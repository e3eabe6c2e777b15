//! The request parser's specification, as a table: input bytes, expected outcome, RFC clause.

use canned::check::{parse_in_pieces, parser_invariants};
use canned::parser::{Error, Form, Framing, Limits, Parser, Status, Version, parse_request};

/// What a case expects of a complete head: (keep_alive, framing, path).
#[derive(Debug)]
enum Want {
    Ok(bool, Framing, &'static str),
    Err(Error),
    Partial,
}
use Want::*;

const LEN5: Framing = Framing::Length(5);
const NONE: Framing = Framing::None;
const CHUNKED: Framing = Framing::Chunked;

#[rustfmt::skip]
const CASES: &[(&str, &[u8], Want)] = &[
    // --- realistic clients ---
    ("wrk", b"GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n", Ok(true, NONE, "/")),
    ("ab -k", b"GET / HTTP/1.0\r\nConnection: Keep-Alive\r\nHost: 127.0.0.1:8080\r\nUser-Agent: ApacheBench/2.3\r\nAccept: */*\r\n\r\n", Ok(true, NONE, "/")),
    ("ab", b"GET /x HTTP/1.0\r\nHost: 127.0.0.1\r\nUser-Agent: ApacheBench/2.3\r\nAccept: */*\r\n\r\n", Ok(false, NONE, "/x")),
    ("curl", b"GET /a/b?c=d HTTP/1.1\r\nHost: localhost:8080\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\n\r\n", Ok(true, NONE, "/a/b")),
    ("curl --http1.0", b"GET / HTTP/1.0\r\nHost: localhost:8080\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\n\r\n", Ok(false, NONE, "/")),
    ("python http.client", b"POST /submit HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAccept-Encoding: identity\r\nContent-Length: 5\r\n\r\n", Ok(true, LEN5, "/submit")),
    ("python requests", b"GET / HTTP/1.1\r\nHost: h\r\nUser-Agent: python-requests/2.31.0\r\nAccept-Encoding: gzip, deflate\r\nAccept: */*\r\nConnection: keep-alive\r\n\r\n", Ok(true, NONE, "/")),
    ("go", b"GET /health HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: Go-http-client/1.1\r\nAccept-Encoding: gzip\r\n\r\n", Ok(true, NONE, "/health")),
    ("browser", b"GET /index.html?x=1 HTTP/1.1\r\nHost: example.com\r\nConnection: keep-alive\r\nCache-Control: max-age=0\r\nsec-ch-ua: \"Chromium\";v=\"119\"\r\nsec-ch-ua-mobile: ?0\r\nUpgrade-Insecure-Requests: 1\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36\r\nAccept: text/html,application/xhtml+xml;q=0.9,*/*;q=0.8\r\nSec-Fetch-Site: none\r\nAccept-Encoding: gzip, deflate, br\r\nAccept-Language: en-US,en;q=0.9\r\nCookie: a=b; c=d\r\n\r\n", Ok(true, NONE, "/index.html")),
    ("node fetch chunked", b"POST /up HTTP/1.1\r\nhost: h\r\nconnection: keep-alive\r\ntransfer-encoding: chunked\r\n\r\n", Ok(true, CHUNKED, "/up")),
    // --- request line, RFC 9112 §3 ---
    ("HEAD", b"HEAD / HTTP/1.1\r\nHost: a\r\n\r\n", Ok(true, NONE, "/")),
    ("extension method", b"PURGE / HTTP/1.1\r\nHost: a\r\n\r\n", Ok(true, NONE, "/")),
    ("method with tchar symbols", b"M-S.E_A~R!C#H / HTTP/1.1\r\nHost: a\r\n\r\n", Ok(true, NONE, "/")),
    ("empty method", b" / HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidMethod)),
    ("method with (", b"GE(T / HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidMethod)),
    ("TLS handshake, partial", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", Err(Error::InvalidMethod)),
    ("two spaces after method", b"GET  / HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("two spaces before version", b"GET /  HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidVersion)),
    ("tab as separator", b"GET\t/ HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidMethod)),
    ("HTTP/0.9 style", b"GET /\r\n\r\n", Err(Error::InvalidRequestLine)),
    ("no target", b"GET\r\n\r\n", Err(Error::InvalidRequestLine)),
    ("target with NUL", b"GET /\0 HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("target with DEL", b"GET /\x7f HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("target with UTF-8", b"GET /\xc3\xa9 HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("absolute-form", b"GET http://a.example/p/q?x HTTP/1.1\r\nHost: a.example\r\n\r\n", Ok(true, NONE, "/p/q")),
    ("absolute-form no path", b"GET http://a.example HTTP/1.1\r\nHost: a.example\r\n\r\n", Ok(true, NONE, "/")),
    ("absolute-form bad scheme", b"GET 1http://a/ HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("relative target", b"GET index.html HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("CONNECT authority-form", b"CONNECT a.example:443 HTTP/1.1\r\nHost: a.example:443\r\n\r\n", Ok(true, NONE, "")),
    ("CONNECT origin-form", b"CONNECT / HTTP/1.1\r\nHost: a\r\n\r\n", Ok(true, NONE, "/")),
    ("CONNECT without port", b"CONNECT a.example HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("authority-form without CONNECT", b"GET a.example:443 HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("OPTIONS *", b"OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", Ok(true, NONE, "")),
    ("GET *", b"GET * HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    // --- origin-form = absolute-path [ "?" query ], RFC 9112 §3.2.1, RFC 3986 §3.3, §3.4 ---
    ("every pchar, / and ?", b"GET /az-AZ09._~!$&'()*+,;=:@/x?q=/?:@!$&'()*+,;=~ HTTP/1.1\r\nHost: a\r\n\r\n", Ok(true, NONE, "/az-AZ09._~!$&'()*+,;=:@/x")),
    ("pct-encoded, either case", b"GET /caf%C3%a9/%2F?x=%20%7e HTTP/1.1\r\nHost: a\r\n\r\n", Ok(true, NONE, "/caf%C3%a9/%2F")),
    ("empty query", b"GET /p? HTTP/1.1\r\nHost: a\r\n\r\n", Ok(true, NONE, "/p")),
    ("double slash path", b"GET //a//b HTTP/1.1\r\nHost: a\r\n\r\n", Ok(true, NONE, "//a//b")),
    ("fragment (RFC 9112 §3.2: never sent)", b"GET /a#frag HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("fragment after query", b"GET /a?b#c HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("backslash", b"GET /a\\b HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("backslash after 16 plain bytes", b"GET /0123456789abcdef\\..\\x HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("% then non-hex", b"GET /%zz HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("% then one hex digit", b"GET /%4g HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("% then one hex digit and SP", b"GET /%4 HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("% at the end", b"GET /a% HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("% in query", b"GET /a?b=100% HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("double quote", b"GET /\"a\" HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("< and >", b"GET /<script> HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("^", b"GET /a^b HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("backquote", b"GET /a`b HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("{ in query", b"GET /a?{} HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("| in query", b"GET /a?b|c HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("brackets in query", b"GET /a?b[]=1 HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("bracket in path", b"GET /[::1] HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("UTF-8 after 8 plain bytes", b"GET /abcdefgh\xc3\xa9ijklmnop HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("DEL after 8 plain bytes", b"GET /abcdefgh\x7fijklmnop HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("HTAB in target", b"GET /a\tb HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    // --- absolute-form = http(s) URI, RFC 9112 §3.2.2, RFC 9110 §4.2, RFC 3986 §3.2 ---
    ("absolute-form port", b"GET http://a.example:8080/p HTTP/1.1\r\nHost: a.example\r\n\r\n", Ok(true, NONE, "/p")),
    ("absolute-form https IPv4", b"GET https://127.0.0.1:8443/p?x HTTP/1.1\r\nHost: a\r\n\r\n", Ok(true, NONE, "/p")),
    ("absolute-form IPv6", b"GET http://[::1]:8080/p HTTP/1.1\r\nHost: a\r\n\r\n", Ok(true, NONE, "/p")),
    ("absolute-form IPvFuture", b"GET http://[v1.fe:x]/ HTTP/1.1\r\nHost: a\r\n\r\n", Ok(true, NONE, "/")),
    ("absolute-form pct-encoded host", b"GET http://a%2Db.example/ HTTP/1.1\r\nHost: a\r\n\r\n", Ok(true, NONE, "/")),
    ("absolute-form query, no path", b"GET http://a.example?x HTTP/1.1\r\nHost: a\r\n\r\n", Ok(true, NONE, "/")),
    ("absolute-form empty host", b"GET http:///p HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("absolute-form only a port", b"GET http://:80/p HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("absolute-form userinfo (RFC 9110 §4.2.4)", b"GET http://u:p@a.example/ HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("absolute-form port not digits", b"GET http://a.example:8o/ HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("absolute-form fragment", b"GET http://a.example/#f HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("absolute-form unclosed IP-literal", b"GET http://[::1/p HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("absolute-form bad IPv6", b"GET http://[1::2::3]/ HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("absolute-form IPv6 zone id", b"GET http://[fe80::1%25eth0]/ HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("absolute-form bracket in path", b"GET http://[::1]/a[b] HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    ("absolute-form backslash host", b"GET http://a\\b/ HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidTarget)),
    // --- version, RFC 9112 §2.3, RFC 9110 §15.6.6 ---
    ("HTTP/1.2", b"GET / HTTP/1.2\r\nHost: a\r\n\r\n", Err(Error::UnsupportedVersion)),
    ("HTTP/2.0", b"GET / HTTP/2.0\r\nHost: a\r\n\r\n", Err(Error::UnsupportedVersion)),
    ("HTTP/0.9", b"GET / HTTP/0.9\r\n\r\n", Err(Error::UnsupportedVersion)),
    ("lower-case http", b"GET / http/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidVersion)),
    ("HTTP/1.10", b"GET / HTTP/1.10\r\nHost: a\r\n\r\n", Err(Error::InvalidVersion)),
    ("HTTP/1", b"GET / HTTP/1\r\nHost: a\r\n\r\n", Err(Error::InvalidVersion)),
    ("PRI (h2 preface)", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", Err(Error::UnsupportedVersion)),
    // --- line endings, RFC 9112 §2.2 ---
    ("leading CRLF skipped", b"\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", Ok(true, NONE, "/")),
    ("bare LF request line", b"GET / HTTP/1.1\nHost: a\r\n\r\n", Err(Error::BareLf)),
    ("bare LF header", b"GET / HTTP/1.1\r\nHost: a\n\r\n", Err(Error::BareLf)),
    ("bare LF end", b"GET / HTTP/1.1\r\nHost: a\r\n\n", Err(Error::BareLf)),
    ("leading bare LF", b"\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::BareLf)),
    ("bare CR in value", b"GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n", Err(Error::BareCr)),
    ("bare CR in target", b"GET /\r HTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::BareCr)),
    ("bare CR after version", b"GET / HTTP/1.1\r\rHost: a\r\n\r\n", Err(Error::BareCr)),
    ("CR in name", b"GET / HTTP/1.1\r\nHo\rst: a\r\n\r\n", Err(Error::InvalidHeaderName)),
    // --- fields, RFC 9112 §5, RFC 9110 §5.5 ---
    ("space before colon", b"GET / HTTP/1.1\r\nHost : a\r\n\r\n", Err(Error::InvalidHeaderName)),
    ("empty name", b"GET / HTTP/1.1\r\nHost: a\r\n: x\r\n\r\n", Err(Error::InvalidHeaderName)),
    ("no colon", b"GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n", Err(Error::InvalidHeaderName)),
    ("name with @", b"GET / HTTP/1.1\r\nHost: a\r\nA@b: c\r\n\r\n", Err(Error::InvalidHeaderName)),
    ("obs-fold", b"GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n b\r\n\r\n", Err(Error::ObsFold)),
    ("obs-fold tab", b"GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n\tb\r\n\r\n", Err(Error::ObsFold)),
    ("NUL in value", b"GET / HTTP/1.1\r\nHost: a\r\nX: a\0b\r\n\r\n", Err(Error::InvalidHeaderValue)),
    ("DEL in value", b"GET / HTTP/1.1\r\nHost: a\r\nX: \x7f\r\n\r\n", Err(Error::InvalidHeaderValue)),
    ("ESC in value", b"GET / HTTP/1.1\r\nHost: a\r\nX: \x1b[0m\r\n\r\n", Err(Error::InvalidHeaderValue)),
    ("obs-text in value", b"GET / HTTP/1.1\r\nHost: a\r\nX: caf\xe9\r\n\r\n", Ok(true, NONE, "/")),
    ("tab and empty value", b"GET / HTTP/1.1\r\nHost: a\r\nX:\t\r\nY:\r\n\r\n", Ok(true, NONE, "/")),
    // --- Host, RFC 9112 §3.2 ---
    ("1.1 without Host", b"GET / HTTP/1.1\r\n\r\n", Err(Error::MissingHost)),
    ("1.1 with two Host", b"GET / HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n", Err(Error::DuplicateHost)),
    ("1.1 empty Host (RFC 9110 §4.2.1: an empty host is invalid)", b"GET / HTTP/1.1\r\nHost:\r\n\r\n", Err(Error::InvalidHost)),
    ("1.1 blank Host", b"GET / HTTP/1.1\r\nHost:  \t\r\n\r\n", Err(Error::InvalidHost)),
    ("1.0 empty Host", b"GET / HTTP/1.0\r\nHost:\r\n\r\n", Err(Error::InvalidHost)),
    ("Host port without a host", b"GET / HTTP/1.1\r\nHost: :80\r\n\r\n", Err(Error::InvalidHost)),
    ("1.0 without Host", b"GET / HTTP/1.0\r\n\r\n", Ok(false, NONE, "/")),
    // --- the fast paths' shapes inside longer tokens: every split must see the whole token ---
    ("a method ending in GET", b"XGET / HTTP/1.1\r\nHost: a\r\n\r\n", Ok(true, NONE, "/")),
    ("a version ending in HTTP/1.1", b"GET / xHTTP/1.1\r\nHost: a\r\n\r\n", Err(Error::InvalidVersion)),
    ("a first field ending in Host", b"GET / HTTP/1.1\r\nX-Host: a\r\n\r\n", Err(Error::MissingHost)),
    // --- the whole-head fast path (GET / HTTP/1.1, a common Host, the end): its edges ---
    ("root head, host and port", b"GET / HTTP/1.1\r\nHost: 127.0.0.1:18101\r\n\r\n", Ok(true, NONE, "/")),
    ("root head, empty port", b"GET / HTTP/1.1\r\nHost: a:\r\n\r\n", Ok(true, NONE, "/")),
    ("root head, host of - and .", b"GET / HTTP/1.1\r\nHost: -.\r\n\r\n", Ok(true, NONE, "/")),
    ("root head, long host", b"GET / HTTP/1.1\r\nHost: a-very-long-host-name.example.org:65535\r\n\r\n", Ok(true, NONE, "/")),
    ("root head, space after the host", b"GET / HTTP/1.1\r\nHost: a \r\n\r\n", Ok(true, NONE, "/")),
    ("root head, two spaces before the host", b"GET / HTTP/1.1\r\nHost:  a\r\n\r\n", Ok(true, NONE, "/")),
    ("root head, a second field", b"GET / HTTP/1.1\r\nHost: a\r\nX: b\r\n\r\n", Ok(true, NONE, "/")),
    ("root head, a second port", b"GET / HTTP/1.1\r\nHost: a:80:1\r\n\r\n", Err(Error::InvalidHost)),
    ("root head, a port with a letter", b"GET / HTTP/1.1\r\nHost: a:8x\r\n\r\n", Err(Error::InvalidHost)),
    ("root head, only a port", b"GET / HTTP/1.1\r\nHost: :1\r\n\r\n", Err(Error::InvalidHost)),
    ("root head, bare LF at the end", b"GET / HTTP/1.1\r\nHost: a\r\n\n", Err(Error::BareLf)),
    ("root head, CR without LF at the end", b"GET / HTTP/1.1\r\nHost: a\r\n\rx", Err(Error::BareCr)),
    ("root head, host with _", b"GET / HTTP/1.1\r\nHost: a_b\r\n\r\n", Ok(true, NONE, "/")),
    ("root head, lowercase name", b"GET / HTTP/1.1\r\nhost: a\r\n\r\n", Ok(true, NONE, "/")),
    // --- Host = uri-host [ ":" port ], RFC 9112 §3.2, RFC 3986 §3.2.2, §3.2.3 ---
    ("Host reg-name, every allowed byte", b"GET / HTTP/1.1\r\nHost: a-Z.0_~!$&'()*+,;=%41\r\n\r\n", Ok(true, NONE, "/")),
    ("Host IPv4 and port", b"GET / HTTP/1.1\r\nHost:  127.0.0.1:8080 \r\n\r\n", Ok(true, NONE, "/")),
    ("Host not an IPv4, still a reg-name", b"GET / HTTP/1.1\r\nHost: 1.2.3.999\r\n\r\n", Ok(true, NONE, "/")),
    ("Host empty port", b"GET / HTTP/1.1\r\nHost: a:\r\n\r\n", Ok(true, NONE, "/")),
    ("Host IPv6 loopback", b"GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n", Ok(true, NONE, "/")),
    ("Host IPv6 full", b"GET / HTTP/1.1\r\nHost: [2001:db8:0:0:1:0:0:ABCD]\r\n\r\n", Ok(true, NONE, "/")),
    ("Host IPv6 with IPv4", b"GET / HTTP/1.1\r\nHost: [::ffff:192.0.2.1]\r\n\r\n", Ok(true, NONE, "/")),
    ("Host IPv6 all zero", b"GET / HTTP/1.1\r\nHost: [::]\r\n\r\n", Ok(true, NONE, "/")),
    ("Host IPvFuture", b"GET / HTTP/1.1\r\nHost: [v7.a:b]:1\r\n\r\n", Ok(true, NONE, "/")),
    ("Host long, _ after 8 bytes", b"GET / HTTP/1.1\r\nHost: abcdefgh_ij.example\r\n\r\n", Ok(true, NONE, "/")),
    ("Host long, slash after 8 bytes", b"GET / HTTP/1.1\r\nHost: abcdefghij/k\r\n\r\n", Err(Error::InvalidHost)),
    ("Host long, port with a letter", b"GET / HTTP/1.1\r\nHost: 127.0.0.1:80a\r\n\r\n", Err(Error::InvalidHost)),
    ("Host long, obs-text after 8 bytes", b"GET / HTTP/1.1\r\nHost: abcdefgh\xff\r\n\r\n", Err(Error::InvalidHost)),
    ("Host with space", b"GET / HTTP/1.1\r\nHost: a b\r\n\r\n", Err(Error::InvalidHost)),
    ("Host with slash", b"GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", Err(Error::InvalidHost)),
    ("Host with userinfo", b"GET / HTTP/1.1\r\nHost: u@a\r\n\r\n", Err(Error::InvalidHost)),
    ("Host port not digits", b"GET / HTTP/1.1\r\nHost: a:80a\r\n\r\n", Err(Error::InvalidHost)),
    ("Host two ports", b"GET / HTTP/1.1\r\nHost: a:1:2\r\n\r\n", Err(Error::InvalidHost)),
    ("Host bare IPv6", b"GET / HTTP/1.1\r\nHost: ::1\r\n\r\n", Err(Error::InvalidHost)),
    ("Host bad escape", b"GET / HTTP/1.1\r\nHost: a%4\r\n\r\n", Err(Error::InvalidHost)),
    ("Host obs-text", b"GET / HTTP/1.1\r\nHost: caf\xe9\r\n\r\n", Err(Error::InvalidHost)),
    ("Host list", b"GET / HTTP/1.1\r\nHost: a, b\r\n\r\n", Err(Error::InvalidHost)),
    ("Host unclosed bracket", b"GET / HTTP/1.1\r\nHost: [::1\r\n\r\n", Err(Error::InvalidHost)),
    ("Host text after bracket", b"GET / HTTP/1.1\r\nHost: [::1]x\r\n\r\n", Err(Error::InvalidHost)),
    ("Host IPv6 nine pieces", b"GET / HTTP/1.1\r\nHost: [1:2:3:4:5:6:7:8:9]\r\n\r\n", Err(Error::InvalidHost)),
    ("Host IPv6 seven pieces", b"GET / HTTP/1.1\r\nHost: [1:2:3:4:5:6:7]\r\n\r\n", Err(Error::InvalidHost)),
    ("Host IPv6 two ::", b"GET / HTTP/1.1\r\nHost: [1::2::3]\r\n\r\n", Err(Error::InvalidHost)),
    ("Host IPv6 ::: ", b"GET / HTTP/1.1\r\nHost: [1:::2]\r\n\r\n", Err(Error::InvalidHost)),
    ("Host IPv6 five hex digits", b"GET / HTTP/1.1\r\nHost: [::12345]\r\n\r\n", Err(Error::InvalidHost)),
    ("Host IPv6 octet over 255", b"GET / HTTP/1.1\r\nHost: [::1.2.3.256]\r\n\r\n", Err(Error::InvalidHost)),
    ("Host IPv6 octet leading zero", b"GET / HTTP/1.1\r\nHost: [::1.2.3.04]\r\n\r\n", Err(Error::InvalidHost)),
    ("Host IPv6 IPv4 not last", b"GET / HTTP/1.1\r\nHost: [1.2.3.4::]\r\n\r\n", Err(Error::InvalidHost)),
    ("Host IPv4 in brackets", b"GET / HTTP/1.1\r\nHost: [1.2.3.4]\r\n\r\n", Err(Error::InvalidHost)),
    ("Host IPvFuture without address", b"GET / HTTP/1.1\r\nHost: [v7.]\r\n\r\n", Err(Error::InvalidHost)),
    ("Host invalid in HTTP/1.0 too", b"GET / HTTP/1.0\r\nHost: a b\r\n\r\n", Err(Error::InvalidHost)),
    // --- keep-alive, RFC 9112 §9.3 ---
    ("1.1 close", b"GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", Ok(false, NONE, "/")),
    ("1.1 CLOSE in list", b"GET / HTTP/1.1\r\nHost: a\r\nConnection: Upgrade, CLOSE\r\n\r\n", Ok(false, NONE, "/")),
    ("1.1 close in second field", b"GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n", Ok(false, NONE, "/")),
    ("1.1 closed (not close)", b"GET / HTTP/1.1\r\nHost: a\r\nConnection: closed\r\n\r\n", Ok(true, NONE, "/")),
    ("1.0 keep-alive", b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", Ok(true, NONE, "/")),
    ("1.0 keep-alive in list", b"GET / HTTP/1.0\r\nConnection: TE , Keep-Alive\r\n\r\n", Ok(true, NONE, "/")),
    ("1.0 keep-alive and close", b"GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n", Ok(false, NONE, "/")),
    // --- Content-Length, RFC 9112 §6.3, RFC 9110 §8.6 ---
    ("CL 0", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n", Ok(true, NONE, "/")),
    ("CL 5", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\n", Ok(true, LEN5, "/")),
    ("CL leading zeros", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 005\r\n\r\n", Ok(true, LEN5, "/")),
    ("CL same twice", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n", Ok(true, LEN5, "/")),
    ("CL same list", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\n\r\n", Ok(true, LEN5, "/")),
    ("CL differ", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", Err(Error::ConflictingContentLength)),
    ("CL list differ", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 6\r\n\r\n", Err(Error::ConflictingContentLength)),
    ("CL +5", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\n", Err(Error::InvalidContentLength)),
    ("CL -1", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", Err(Error::InvalidContentLength)),
    ("CL hex", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x5\r\n\r\n", Err(Error::InvalidContentLength)),
    ("CL empty", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length:\r\n\r\n", Err(Error::InvalidContentLength)),
    ("CL empty member", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5,\r\n\r\n", Err(Error::InvalidContentLength)),
    ("CL inner space", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1 2\r\n\r\n", Err(Error::InvalidContentLength)),
    ("CL overflow", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 18446744073709551616\r\n\r\n", Err(Error::InvalidContentLength)),
    ("CL u64 max", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 18446744073709551615\r\n\r\n", Ok(true, Framing::Length(u64::MAX), "/")),
    // --- Transfer-Encoding, RFC 9112 §6.1, §6.3 ---
    ("TE chunked", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n", Ok(true, CHUNKED, "/")),
    ("TE CHUNKED", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: CHUNKED\r\n\r\n", Ok(true, CHUNKED, "/")),
    ("TE gzip, chunked", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", Ok(true, CHUNKED, "/")),
    ("TE in two fields", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n", Ok(true, CHUNKED, "/")),
    ("TE chunked, gzip", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", Err(Error::ChunkedNotFinal)),
    ("TE chunked twice", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", Err(Error::ChunkedNotFinal)),
    ("TE gzip only", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", Err(Error::ChunkedNotFinal)),
    ("TE empty", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:\r\n\r\n", Err(Error::ChunkedNotFinal)),
    ("TE unknown", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: br, chunked\r\n\r\n", Err(Error::UnknownTransferCoding)),
    ("TE unknown, then chunked in a second field", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: br\r\nTransfer-Encoding: chunked\r\n\r\n", Err(Error::UnknownTransferCoding)),
    ("TE unknown alone", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: identity\r\n\r\n", Err(Error::UnknownTransferCoding)),
    // 400 before 501: chunked present but not final makes the length unknowable (§6.3 (4))
    ("TE chunked, identity: 400 not 501", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, identity\r\n\r\n", Err(Error::ChunkedNotFinal)),
    ("TE br, chunked, gzip: 400 not 501", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: br, chunked, gzip\r\n\r\n", Err(Error::ChunkedNotFinal)),
    ("TE chunked then identity field: 400", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n", Err(Error::ChunkedNotFinal)),
    ("TE chunked then br, chunked field: 400", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: br, chunked\r\n\r\n", Err(Error::ChunkedNotFinal)),
    ("TE chunked;x with unknown: 400", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: br, chunked;x=1\r\n\r\n", Err(Error::ChunkedNotFinal)),
    ("TE unknown with CL: 400", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: br\r\n\r\n", Err(Error::ContentLengthWithTransferEncoding)),
    ("TE unknown then a bad field: 400", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: br\r\nBad Name: x\r\n\r\n", Err(Error::InvalidHeaderName)),
    ("TE unknown without Host: 400", b"POST / HTTP/1.1\r\nTransfer-Encoding: br\r\n\r\n", Err(Error::MissingHost)),
    ("TE unknown in HTTP/1.0: 400", b"POST / HTTP/1.0\r\nTransfer-Encoding: br\r\n\r\n", Err(Error::TransferEncodingHttp10)),
    ("TE chunked with param", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked;q=1\r\n\r\n", Err(Error::ChunkedNotFinal)),
    ("TE xchunked", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: xchunked\r\n\r\n", Err(Error::UnknownTransferCoding)),
    ("TE chunked in quotes", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: \"chunked\"\r\n\r\n", Err(Error::UnknownTransferCoding)),
    ("TE vertical tab", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:\x0bchunked\r\n\r\n", Err(Error::InvalidHeaderValue)),
    ("TE with CL", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", Err(Error::ContentLengthWithTransferEncoding)),
    ("TE in HTTP/1.0", b"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", Err(Error::TransferEncodingHttp10)),
    ("TE space before colon", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding : chunked\r\n\r\n", Err(Error::InvalidHeaderName)),
    // --- Expect, RFC 9110 §10.1.1 ---
    ("Expect 100-continue", b"PUT / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-Continue\r\n\r\n", Ok(true, LEN5, "/")),
    ("Expect other", b"PUT / HTTP/1.1\r\nHost: a\r\nExpect: 200-ok\r\n\r\n", Err(Error::ExpectationFailed)),
    // --- incomplete ---
    ("empty", b"", Partial),
    ("only CRLF", b"\r\n", Partial),
    ("partial head", b"GET / HTTP/1.1\r\nHost: a\r\n", Partial),
];

fn limits() -> Limits {
    Limits::default()
}

#[test]
fn table() {
    for (name, input, want) in CASES {
        let got = parse_request(input, limits());
        match (want, got) {
            (Ok(ka, framing, path), Result::Ok(Status::Complete(r))) => {
                assert_eq!(r.keep_alive, *ka, "{name}: keep-alive");
                assert_eq!(r.framing, *framing, "{name}: framing");
                assert_eq!(r.path, path.as_bytes(), "{name}: path");
                assert_eq!(r.head_len, input.len(), "{name}: head_len");
            }
            (Err(e), Result::Err(g)) => assert_eq!(g, *e, "{name}"),
            (Partial, Result::Ok(Status::Partial)) => {}
            (want, got) => panic!("{name}: want {want:?}, got {got:?}"),
        }
    }
}

#[test]
fn table_invariants_every_split() {
    for (name, input, _) in CASES {
        // Every single cut point, and byte by byte.
        for cut in 0..=input.len() {
            let _ = name;
            parser_invariants(input, &[cut], limits());
        }
        let all: Vec<usize> = (0..input.len()).collect();
        assert_eq!(
            parse_in_pieces(input, &all, limits()),
            parse_request(input, limits()),
            "{name}: byte by byte"
        );
    }
}

#[test]
fn every_strict_prefix_of_a_valid_request_is_partial() {
    for (name, input, want) in CASES {
        if let Ok(..) = want {
            for k in 0..input.len() {
                assert_eq!(
                    parse_request(&input[..k], limits()),
                    Result::Ok(Status::Partial),
                    "{name}: prefix {k}"
                );
            }
        }
    }
}

#[test]
fn decisions() {
    let r = match parse_request(b"HEAD /p?q HTTP/1.0\r\n\r\n", limits()) {
        Result::Ok(Status::Complete(r)) => r,
        other => panic!("{other:?}"),
    };
    assert!(r.is_head);
    assert_eq!(r.method, b"HEAD");
    assert_eq!(r.target, b"/p?q");
    assert_eq!(r.version, Version::Http10);
    assert_eq!(r.form, Form::Origin);
    let r = match parse_request(
        b"PUT / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n",
        limits(),
    ) {
        Result::Ok(Status::Complete(r)) => r,
        other => panic!("{other:?}"),
    };
    assert!(r.expect_continue);
    assert_eq!(r.headers, 3);
    // RFC 9110 §10.1.1: a 100-continue expectation in HTTP/1.0 is ignored; without a body
    // there is nothing to continue.
    for head in [
        &b"PUT / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n"[..],
        b"GET / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\n\r\n",
    ] {
        match parse_request(head, limits()) {
            Result::Ok(Status::Complete(r)) => assert!(!r.expect_continue),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn limits_give_414_and_431() {
    let small = Limits {
        max_head: 64,
        max_headers: 2,
    };
    let long_line = [b"GET /".as_slice(), &[b'a'; 100], b" HTTP/1.1\r\n\r\n"].concat();
    assert_eq!(
        parse_request(&long_line, small),
        Result::Err(Error::UriTooLong)
    );
    assert_eq!(Error::UriTooLong.status(), 414);
    let long_head = [
        b"GET / HTTP/1.1\r\nHost: a\r\nX: ".as_slice(),
        &[b'a'; 100],
        b"\r\n\r\n",
    ]
    .concat();
    assert_eq!(
        parse_request(&long_head, small),
        Result::Err(Error::HeadTooLarge)
    );
    assert_eq!(Error::HeadTooLarge.status(), 431);
    let many = b"GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 2\r\n\r\n";
    assert_eq!(
        parse_request(many, small),
        Result::Err(Error::TooManyHeaders)
    );
    assert_eq!(Error::TooManyHeaders.status(), 431);
    // Exactly at the limit is accepted.
    let exact = b"GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\n\r\n";
    let fit = Limits {
        max_head: exact.len(),
        max_headers: 2,
    };
    assert!(matches!(
        parse_request(exact, fit),
        Result::Ok(Status::Complete(_))
    ));
    let tight = Limits {
        max_head: exact.len() - 1,
        max_headers: 2,
    };
    assert_eq!(
        parse_request(exact, tight),
        Result::Err(Error::HeadTooLarge)
    );
    // The limit is enforced while the head is still partial. A method that long is a bad
    // method (400), not a long target (Http11Probe expects 400 or 501).
    assert_eq!(
        parse_request(&[b'G'; 64], small),
        Result::Err(Error::InvalidMethod)
    );
    assert_eq!(Error::InvalidMethod.status(), 400);
    // Empty lines that fill the limit are no request line at all.
    assert_eq!(
        parse_request(&b"\r\n".repeat(32), small),
        Result::Err(Error::InvalidRequestLine)
    );
    // A version that does not end within the limit is a bad version, not a long target.
    assert_eq!(
        parse_request(&[b"GET / HTTP/".as_slice(), &[b'1'; 60]].concat(), small),
        Result::Err(Error::InvalidVersion)
    );
    // A target that does not fit is 414, however early it is cut.
    assert_eq!(
        parse_request(&[b"GET /".as_slice(), &[b'a'; 59]].concat(), small),
        Result::Err(Error::UriTooLong)
    );
    assert_eq!(
        parse_request(&[b'G'; 63], small),
        Result::Ok(Status::Partial)
    );
}

#[test]
fn status_codes_are_decided_in_one_place() {
    let want = [
        (Error::UnsupportedVersion, 505),
        (Error::UnknownTransferCoding, 501),
        (Error::ExpectationFailed, 417),
        (Error::BareLf, 400),
        (Error::ContentLengthWithTransferEncoding, 400),
        (Error::ChunkedNotFinal, 400),
        (Error::InvalidHost, 400),
        (Error::InvalidChunkExt, 400),
    ];
    for (e, s) in want {
        assert_eq!(e.status(), s, "{e}");
    }
    for (i, e) in Error::ALL.iter().enumerate() {
        assert_eq!(e.index(), i);
        assert!(matches!(e.status(), 400 | 414 | 417 | 431 | 501 | 505));
    }
}

#[test]
fn pipeline_parses_one_after_another() {
    let reqs: [&[u8]; 3] = [
        b"GET /a HTTP/1.1\r\nHost: a\r\n\r\n",
        b"HEAD /bb HTTP/1.1\r\nHost: a\r\n\r\n",
        b"GET /ccc HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
    ];
    let buf = reqs.concat();
    let mut p = Parser::new(limits());
    let mut at = 0;
    for (i, want) in reqs.iter().enumerate() {
        match p.parse(&buf[at..]) {
            Result::Ok(Status::Complete(r)) => {
                assert_eq!(r.head_len, want.len(), "request {i}");
                assert_eq!(r.keep_alive, i != 2);
                at += r.head_len;
            }
            other => panic!("request {i}: {other:?}"),
        }
    }
    assert_eq!(at, buf.len());
    assert_eq!(p.parse(&buf[at..]), Result::Ok(Status::Partial));
}

#[test]
fn a_partial_line_is_not_rescanned_wrongly() {
    // Resume across many calls that each add one byte, then a whole header at once.
    let input = b"GET / HTTP/1.1\r\nHost: a\r\nX-Long: 0123456789\r\n\r\n";
    let mut p = Parser::new(limits());
    for k in 0..20 {
        assert_eq!(p.parse(&input[..k]), Result::Ok(Status::Partial));
    }
    assert!(p.in_progress());
    assert!(matches!(p.parse(input), Result::Ok(Status::Complete(r)) if r.head_len == input.len()));
    assert!(!p.in_progress());
}

/// Heads that start with the root request line, which `parse` takes in one comparison:
/// cut anywhere, the scan reaches the same outcome, under limits around its length.
#[test]
fn root_request_line_is_what_the_scan_decides() {
    let rests: &[&[u8]] = &[
        b"Host: a\r\n\r\n",
        b"\r\n",
        b"Host: a\r\nHost: b\r\n\r\n",
        b"Host: [::1]:8080\r\n\r\n",
        b"Host: a b\r\n\r\n",
        b" Host: a\r\n\r\n",
        b"\nHost: a\r\n\r\n",
        b"Connection: close\r\nHost: a\r\n\r\n",
        b"Content-Length: 5\r\nHost: a\r\n\r\nhello",
        b"Transfer-Encoding: chunked\r\nHost: a\r\n\r\n",
        // The whole-head fast path's shapes, and bytes after the head (pipelining).
        b"Host: 127.0.0.1:8080\r\n\r\n",
        b"Host: a\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n",
        b"Host: a:\r\n\r\n",
        b"Host: a:1:\r\n\r\n",
        b"Host: a\r\n\r",
        b"Host: a \r\n\r\n",
        b"Host: \r\n\r\n",
    ];
    let limits = [16, 17, 24, 26, 27, 8192]
        .into_iter()
        .flat_map(|max_head| {
            [0, 1].map(|max_headers| Limits {
                max_head,
                max_headers,
            })
        })
        .collect::<Vec<_>>();
    for rest in rests {
        let head = [&b"GET / HTTP/1.1\r\n"[..], rest].concat();
        for limits in limits.iter().copied().chain([Limits::default()]) {
            for cut in 0..=head.len() {
                parser_invariants(&head, &[cut], limits);
            }
        }
    }
}

/// The `Range` value, OWS trimmed (RFC 9110 §14.2); a second `Range` field makes it invalid
/// (empty, answered with the whole body); absent on the plain root request.
#[test]
fn range_value() {
    let cases: [(&[u8], Option<&[u8]>); 5] = [
        (b"GET / HTTP/1.1\r\nHost: a\r\n\r\n", None),
        (
            b"GET / HTTP/1.1\r\nHost: a\r\nRange:  bytes=0-9 \r\n\r\n",
            Some(b"bytes=0-9"),
        ),
        (
            b"GET /f HTTP/1.1\r\nrAnGe: bytes=-5\r\nHost: a\r\n\r\n",
            Some(b"bytes=-5"),
        ),
        (
            b"GET / HTTP/1.1\r\nHost: a\r\nRange: bytes=0-1\r\nRange: bytes=2-3\r\n\r\n",
            Some(b""),
        ),
        (b"GET / HTTP/1.0\r\nRanges: bytes=0-1\r\n\r\n", None),
    ];
    for (head, want) in cases {
        match parse_request(head, limits()) {
            Result::Ok(Status::Complete(r)) => assert_eq!(r.range, want, "{head:?}"),
            other => panic!("{other:?}"),
        }
    }
}

/// `Upgrade` (RFC 9110 §7.8) is flagged by name, any case, apart from the conditions: a
/// request that asks for another protocol is not a conditional one.
#[test]
fn upgrade_flag() {
    let cases: [(&str, bool, bool); 6] = [
        ("", false, false),
        ("Upgrade: h2c\r\n", true, false),
        ("UPGRADE: websocket\r\n", true, false),
        ("Upgrade: h2c\r\nIf-None-Match: *\r\n", true, true),
        ("X-Upgrade: h2c\r\n", false, false),
        ("Upgrade-Insecure-Requests: 1\r\n", false, false),
    ];
    for (field, upgrade, conditional) in cases {
        let head = format!("GET / HTTP/1.1\r\nHost: a\r\n{field}\r\n");
        match parse_request(head.as_bytes(), limits()) {
            Result::Ok(Status::Complete(r)) => {
                assert_eq!(r.upgrade, upgrade, "{field:?}");
                assert_eq!(r.range_or_conditional, conditional, "{field:?}");
            }
            other => panic!("{other:?}"),
        }
    }
}

/// `Range` and the conditional fields (RFC 9110 §13.1) are flagged by name, any case, and
/// nothing else is: a request without one is never read again for them.
#[test]
fn range_or_conditional_flag() {
    let cases: [(&str, bool); 13] = [
        ("", false),
        // Not a condition: flagged apart (`upgrade_flag`).
        ("Upgrade: h2c\r\n", false),
        ("Connection: Upgrade\r\n", false),
        ("If-Match: \"a\"\r\n", true),
        ("if-none-match: *\r\n", true),
        ("IF-MODIFIED-SINCE: x\r\n", true),
        ("If-Unmodified-Since: x\r\n", true),
        ("If-Range: \"a\"\r\n", true),
        ("If-Matches: x\r\n", false),
        ("X-If-Range: x\r\n", false),
        ("Range: bytes=0-1\r\n", true),
        ("range: x\r\n", true),
        ("X-Range: bytes=0-1\r\n", false),
    ];
    for (field, want) in cases {
        let head = format!("GET / HTTP/1.1\r\nHost: a\r\n{field}\r\n");
        match parse_request(head.as_bytes(), limits()) {
            Result::Ok(Status::Complete(r)) => {
                assert_eq!(r.range_or_conditional, want, "{field:?}")
            }
            other => panic!("{other:?}"),
        }
    }
}
