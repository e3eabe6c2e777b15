/* capi/tests/strictness.h: one message per rule of the README's Strictness table (two or
 * three where a row names several), whole (head and body), with canned's outcome. The C test
 * checks canned against it; the peer benchmark (capi/benches) asks picohttpparser and llhttp
 * which of them they accept. */
#ifndef CANNED_TEST_STRICTNESS_H
#define CANNED_TEST_STRICTNESS_H

#include <stdbool.h>
#include <stddef.h>

#include "canned.h"

struct strict_case {
    /* The README row, as its first column says it. */
    const char *row;
    /* What this message shows of it. */
    const char *example;
    const unsigned char *input;
    size_t len;
    /* canned's outcome for the whole message: CANNED_COMPLETE (accepted) or the error. */
    int want;
    /* A chunked body follows the head: a peer is asked to decode it too. */
    bool chunked;
};

#define M(s) (const unsigned char *)(s), sizeof(s) - 1
#define POST "POST / HTTP/1.1\r\nHost: a\r\n"
#define TE_CHUNKED POST "Transfer-Encoding: chunked\r\n\r\n"

static const struct strict_case STRICT_CASES[] = {
    {"bare LF as a line end", "LF after every line", M("GET / HTTP/1.1\nHost: a\n\n"), CANNED_E_BARE_LF, false},
    {"bare CR anywhere", "CR inside a value", M("GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n"), CANNED_E_BARE_CR, false},
    {"empty lines before the request line", "two CRLF first", M("\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n"), CANNED_COMPLETE, false},
    {"more than one SP between request-line parts", "two SP after the method", M("GET  / HTTP/1.1\r\nHost: a\r\n\r\n"), CANNED_E_INVALID_TARGET, false},
    {"origin-form that is not absolute-path [ \"?\" query ] of pchar", "a fragment", M("GET /a#f HTTP/1.1\r\nHost: a\r\n\r\n"), CANNED_E_INVALID_TARGET, false},
    {"origin-form that is not absolute-path [ \"?\" query ] of pchar", "a backslash", M("GET /a\\b HTTP/1.1\r\nHost: a\r\n\r\n"), CANNED_E_INVALID_TARGET, false},
    {"origin-form that is not absolute-path [ \"?\" query ] of pchar", "non-ASCII (UTF-8)", M("GET /caf\303\251 HTTP/1.1\r\nHost: a\r\n\r\n"), CANNED_E_INVALID_TARGET, false},
    {"% in the target not followed by two hex digits", "%zz", M("GET /%zz HTTP/1.1\r\nHost: a\r\n\r\n"), CANNED_E_INVALID_TARGET, false},
    {"authority-form without CONNECT, * without OPTIONS", "GET host:port", M("GET a.example:443 HTTP/1.1\r\nHost: a\r\n\r\n"), CANNED_E_INVALID_TARGET, false},
    {"authority-form without CONNECT, * without OPTIONS", "GET *", M("GET * HTTP/1.1\r\nHost: a\r\n\r\n"), CANNED_E_INVALID_TARGET, false},
    {"absolute-form with a scheme other than http/https", "ftp://", M("GET ftp://a.example/ HTTP/1.1\r\nHost: a\r\n\r\n"), CANNED_E_INVALID_TARGET, false},
    {"absolute-form whose authority is empty, has userinfo, or is not uri-host [ \":\" port ]", "userinfo", M("GET http://u:p@a.example/ HTTP/1.1\r\nHost: a\r\n\r\n"), CANNED_E_INVALID_TARGET, false},
    {"absolute-form whose authority is empty, has userinfo, or is not uri-host [ \":\" port ]", "empty authority", M("GET http:///p HTTP/1.1\r\nHost: a\r\n\r\n"), CANNED_E_INVALID_TARGET, false},
    {"Host not uri-host [ \":\" port ]", "a space inside", M("GET / HTTP/1.1\r\nHost: a b\r\n\r\n"), CANNED_E_INVALID_HOST, false},
    {"Host not uri-host [ \":\" port ]", "a slash inside", M("GET / HTTP/1.1\r\nHost: a/b\r\n\r\n"), CANNED_E_INVALID_HOST, false},
    {"an empty Host", "Host:", M("GET / HTTP/1.1\r\nHost:\r\n\r\n"), CANNED_E_INVALID_HOST, false},
    {"whitespace before a field's colon; obs-fold", "SP before the colon", M("GET / HTTP/1.1\r\nHost : a\r\n\r\n"), CANNED_E_INVALID_HEADER_NAME, false},
    {"whitespace before a field's colon; obs-fold", "obs-fold", M("GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n b\r\n\r\n"), CANNED_E_OBS_FOLD, false},
    {"NUL, DEL or another CTL in a field value", "NUL", M("GET / HTTP/1.1\r\nHost: a\r\nX: a\000b\r\n\r\n"), CANNED_E_INVALID_HEADER_VALUE, false},
    {"NUL, DEL or another CTL in a field value", "DEL", M("GET / HTTP/1.1\r\nHost: a\r\nX: a\177b\r\n\r\n"), CANNED_E_INVALID_HEADER_VALUE, false},
    {"HTTP/1.1 without exactly one Host", "no Host", M("GET / HTTP/1.1\r\n\r\n"), CANNED_E_MISSING_HOST, false},
    {"HTTP/1.1 without exactly one Host", "two Host", M("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"), CANNED_E_DUPLICATE_HOST, false},
    {"Content-Length not 1*DIGIT, signed, or over u64", "+5", M(POST "Content-Length: +5\r\n\r\nhello"), CANNED_E_INVALID_CONTENT_LENGTH, false},
    {"Content-Length not 1*DIGIT, signed, or over u64", "2^64", M(POST "Content-Length: 18446744073709551616\r\n\r\nhello"), CANNED_E_INVALID_CONTENT_LENGTH, false},
    {"several Content-Length values", "equal, in two fields", M(POST "Content-Length: 5\r\nContent-Length: 5\r\n\r\nhello"), CANNED_COMPLETE, false},
    {"several Content-Length values", "equal, in a list", M(POST "Content-Length: 5, 5\r\n\r\nhello"), CANNED_COMPLETE, false},
    {"several Content-Length values", "different", M(POST "Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello"), CANNED_E_CONFLICTING_CONTENT_LENGTH, false},
    {"Transfer-Encoding with Content-Length", "both", M(POST "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"), CANNED_E_CONTENT_LENGTH_WITH_TRANSFER_ENCODING, true},
    {"Transfer-Encoding in HTTP/1.0", "chunked", M("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"), CANNED_E_TRANSFER_ENCODING_HTTP10, true},
    {"final coding not chunked, or chunked twice", "chunked, gzip", M(POST "Transfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n"), CANNED_E_CHUNKED_NOT_FINAL, true},
    {"final coding not chunked, or chunked twice", "chunked, chunked", M(POST "Transfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n"), CANNED_E_CHUNKED_NOT_FINAL, true},
    {"a transfer coding other than chunked, gzip, deflate, compress", "br, chunked", M(POST "Transfer-Encoding: br, chunked\r\n\r\n0\r\n\r\n"), CANNED_E_UNKNOWN_TRANSFER_CODING, true},
    {"chunked present but not final together with an unknown coding", "br, chunked, gzip", M(POST "Transfer-Encoding: br, chunked, gzip\r\n\r\n0\r\n\r\n"), CANNED_E_CHUNKED_NOT_FINAL, true},
    {"chunk size not hex, over 2^60, whitespace after it; bare CR/LF in chunk lines", "0x5", M(TE_CHUNKED "0x5\r\nhello\r\n0\r\n\r\n"), CANNED_E_INVALID_CHUNK_SIZE, true},
    {"chunk size not hex, over 2^60, whitespace after it; bare CR/LF in chunk lines", "SP after the size", M(TE_CHUNKED "5 \r\nhello\r\n0\r\n\r\n"), CANNED_E_INVALID_CHUNK_EXT, true},
    {"chunk size not hex, over 2^60, whitespace after it; bare CR/LF in chunk lines", "bare LF after the size", M(TE_CHUNKED "5\nhello\r\n0\r\n\r\n"), CANNED_E_BARE_LF, true},
    {"chunk extension not *( BWS \";\" BWS token [ BWS \"=\" BWS ( token / quoted-string ) ] )", "a bare ;", M(TE_CHUNKED "5;\r\nhello\r\n0\r\n\r\n"), CANNED_E_INVALID_CHUNK_EXT, true},
    {"chunk extension not *( BWS \";\" BWS token [ BWS \"=\" BWS ( token / quoted-string ) ] )", "unterminated quoted-string", M(TE_CHUNKED "5;a=\"b\r\nhello\r\n0\r\n\r\n"), CANNED_E_INVALID_CHUNK_EXT, true},
    {"well-formed chunk extensions, trailers", "an extension and a trailer", M(TE_CHUNKED "5;a=b\r\nhello\r\n0\r\nX-Sum: 1\r\n\r\n"), CANNED_COMPLETE, true},
};

#undef M
#undef POST
#undef TE_CHUNKED

#endif
