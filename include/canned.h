/* canned.h: canned's HTTP/1.x request parser and chunked body decoder, as a C library.
 *
 * Link with libcanned_capi.a (built by `cargo build --release` in capi/; docs/capi.md).
 * The library is the Rust parser canned's server uses, compiled without std: strict (RFC 9112
 * and RFC 9110, the README's Strictness table), incremental, zero-copy. It allocates nothing
 * and keeps no global state (only memchr's choice of routine on x86_64, cached in an atomic),
 * so it runs on a microcontroller as on Linux, and any number of parsers may run at once on as
 * many threads.
 *
 * Conventions, for every function below:
 *   - A parser (canned_parser) or decoder (canned_chunked) lives in storage the caller owns, of
 *     the size stated here. It is opaque: write it only through these functions. It holds no
 *     pointer, so it may be copied (assignment, memcpy) to another place and used there.
 *   - Every pointer argument must be non-NULL: NULL gives CANNED_E_NULL_POINTER, whatever the
 *     length. A state pointer that is not aligned as uint64_t gives CANNED_E_MISALIGNED.
 *   - A state that was never initialised gives CANNED_E_BAD_STATE. Zero-initialised storage
 *     (`canned_parser p = {0};`, a static) is always recognised as not initialised; storage
 *     that was never written at all is recognised unless its first 8 bytes happen to hold the
 *     library's magic word.
 *   - Functions return an int code: CANNED_COMPLETE (0, also CANNED_OK), CANNED_PARTIAL (1), or
 *     a negative error code. canned_code_name() and canned_code_status() map any code to its
 *     name and to the HTTP status to answer it with.
 *   - A misuse (a code from CANNED_E_NULL_POINTER down) changes nothing: the call is refused
 *     before any state is touched. An error of the request ends the parser's or decoder's
 *     use until it is reset or initialised again.
 *   - Pointers and lengths the library returns point into the caller's buffer, which must stay
 *     valid and unchanged for as long as they are used. Nothing is copied.
 *   - No function panics, aborts, blocks or calls back. (The library is built with panic=abort;
 *     a panic, which the tests find unreachable, would call abort().)
 */
#ifndef CANNED_H
#define CANNED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Return codes --------------------------------------------------------------------------- */

#define CANNED_OK 0       /* success of init, reset and the queries */
#define CANNED_COMPLETE 0 /* canned_parse: the head is complete; canned_chunked_decode: the body ended */
#define CANNED_PARTIAL 1  /* more bytes are needed */

/* Errors of the request: answer with canned_code_status(code), then close the connection
 * (the framing of anything after the error is unknown). Each is one cause; the comment gives
 * its status and the rule (RFC 9112 unless noted). */
#define CANNED_E_INVALID_METHOD -1          /* 400: empty, or a byte that is not a tchar (RFC 9110 §9.1) */
#define CANNED_E_INVALID_TARGET -2          /* 400: empty, outside its form's grammar, or a form the method does not allow (§3.2) */
#define CANNED_E_INVALID_REQUEST_LINE -3    /* 400: not `method SP target SP version` (§3) */
#define CANNED_E_INVALID_VERSION -4         /* 400: not `HTTP/d.d` (§2.3) */
#define CANNED_E_UNSUPPORTED_VERSION -5     /* 505: `HTTP/d.d` other than 1.0 and 1.1 */
#define CANNED_E_INVALID_HEADER_NAME -6     /* 400: empty, a non-tchar byte, or whitespace before the colon (§5.1) */
#define CANNED_E_INVALID_HEADER_VALUE -7    /* 400: a control byte in a field value (RFC 9110 §5.5) */
#define CANNED_E_OBS_FOLD -8                /* 400: a field line starting with whitespace (§5.2) */
#define CANNED_E_BARE_LF -9                 /* 400: a LF not preceded by CR (§2.2) */
#define CANNED_E_BARE_CR -10                /* 400: a CR not followed by LF (§2.2) */
#define CANNED_E_MISSING_HOST -11           /* 400: HTTP/1.1 without Host (§3.2) */
#define CANNED_E_DUPLICATE_HOST -12         /* 400: more than one Host (§3.2) */
#define CANNED_E_INVALID_CONTENT_LENGTH -13 /* 400: not 1*DIGIT, or over 2^64 - 1 (§6.3) */
#define CANNED_E_CONFLICTING_CONTENT_LENGTH -14 /* 400: Content-Length values that differ (§6.3) */
#define CANNED_E_CONTENT_LENGTH_WITH_TRANSFER_ENCODING -15 /* 400: both framings (§6.3) */
#define CANNED_E_TRANSFER_ENCODING_HTTP10 -16 /* 400: Transfer-Encoding in HTTP/1.0 (§6.1) */
#define CANNED_E_CHUNKED_NOT_FINAL -17      /* 400: the final coding is not chunked, or chunked twice (§6.3) */
#define CANNED_E_UNKNOWN_TRANSFER_CODING -18 /* 501: a coding other than chunked, gzip, deflate, compress (§6.1) */
#define CANNED_E_EXPECTATION_FAILED -19     /* 417: an Expect other than 100-continue (RFC 9110 §10.1.1) */
#define CANNED_E_URI_TOO_LONG -20           /* 414: the request line does not fit in max_head */
#define CANNED_E_HEAD_TOO_LARGE -21         /* 431: the head does not fit in max_head */
#define CANNED_E_TOO_MANY_HEADERS -22       /* 431: more fields than max_headers */
#define CANNED_E_INVALID_CHUNK_SIZE -23     /* 400: a chunk size that is not hex (§7.1) */
#define CANNED_E_CHUNK_SIZE_OVERFLOW -24    /* 400: a chunk size over 2^60 */
#define CANNED_E_INVALID_CHUNK_EXT -25      /* 400: a malformed chunk extension, or a size line over 4 KiB (§7.1.1) */
#define CANNED_E_INVALID_CHUNK_DATA -26     /* 400: chunk data not followed by CRLF (§7.1) */
#define CANNED_E_INVALID_TRAILER -27        /* 400: a malformed trailer section, or one over 8 KiB (§7.1.2) */
#define CANNED_E_INVALID_HOST -28           /* 400: a Host that is not `uri-host [ ":" port ]` (§3.2, RFC 3986 §3.2.2) */
#define CANNED_E_BODY_TOO_LARGE -100        /* 413: a chunked body announced more than max_data (RFC 9110 §15.5.14) */

/* Misuses: a bug in the calling program, never caused by the bytes received (status 500). */
#define CANNED_E_NULL_POINTER -101     /* a pointer argument is NULL */
#define CANNED_E_MISALIGNED -102       /* a state pointer not aligned as uint64_t */
#define CANNED_E_BAD_STATE -103        /* never initialised, or used after an error or after the body ended */
#define CANNED_E_INPUT_SHRANK -104     /* canned_parse handed fewer bytes than the call that returned CANNED_PARTIAL */
#define CANNED_E_INVALID_ARGUMENT -105 /* max_head 0, a length over PTRDIFF_MAX, a cursor no call returned */

/* The name of a code, for logs and counters: "bare_lf" for CANNED_E_BARE_LF, "complete",
 * "partial", "null_pointer", ...; "unknown_code" for a value that is not a code. Never NULL;
 * a static string, never to be freed. */
const char *canned_code_name(int code);

/* The HTTP status to answer a code with: 400, 413, 414, 417, 431, 501 or 505 for an error of
 * the request; 500 for a misuse; 0 for CANNED_COMPLETE, CANNED_PARTIAL and any value that is
 * not a code. */
int canned_code_status(int code);

/* ---- The request-head parser ---------------------------------------------------------------- */

#define CANNED_PARSER_WORDS 16
/* One parser: 128 bytes, aligned as uint64_t. Opaque; see the conventions above. */
typedef struct canned_parser {
    uint64_t opaque[CANNED_PARSER_WORDS];
} canned_parser;

/* sizeof(canned_parser) as the library was built with: compare it at start-up to catch a
 * header and a library that do not belong together. */
size_t canned_parser_size(void);

/* The default limits of canned's server. */
#define CANNED_DEFAULT_MAX_HEAD 8192
#define CANNED_DEFAULT_MAX_HEADERS 100

/* Initialise (or re-initialise) a parser. max_head: the most bytes a head may take, request
 * line, empty lines before it and the final CRLF included (CANNED_E_HEAD_TOO_LARGE, or
 * CANNED_E_URI_TOO_LONG when the request line alone does not fit); at least 1, capped at
 * 2^32 - 1. max_headers: the most header fields (CANNED_E_TOO_MANY_HEADERS), capped at 65,534.
 * Returns CANNED_OK, or CANNED_E_NULL_POINTER, CANNED_E_MISALIGNED, CANNED_E_INVALID_ARGUMENT
 * (max_head 0). Whatever the storage held before is overwritten. */
int canned_parser_init(canned_parser *parser, size_t max_head, size_t max_headers);

/* Forget a partial request, or an error, and keep the limits: the next canned_parse starts a
 * new request. Returns CANNED_OK, or a misuse code (an uninitialised parser: CANNED_E_BAD_STATE). */
int canned_parser_reset(canned_parser *parser);

/* The request-target's form. */
#define CANNED_FORM_ORIGIN 0    /* /path?query */
#define CANNED_FORM_ABSOLUTE 1  /* http://host/path?query */
#define CANNED_FORM_AUTHORITY 2 /* host:port, CONNECT only */
#define CANNED_FORM_ASTERISK 3  /* *, OPTIONS only */

/* How the body is framed (RFC 9112 §6.3). */
#define CANNED_FRAMING_NONE 0    /* no body (no Content-Length, or Content-Length: 0) */
#define CANNED_FRAMING_LENGTH 1  /* content_length bytes follow the head */
#define CANNED_FRAMING_CHUNKED 2 /* a chunked body follows: decode it with canned_chunked_decode */

/* A complete request head. Written by canned_parse; every pointer points into the buffer
 * handed to it (except path, see below), nothing is NUL-terminated. */
typedef struct canned_request {
    const unsigned char *head;   /* the buffer's first byte: the head is head[0 .. head_len) */
    size_t head_len;             /* bytes of the head, empty lines before it and the final CRLF
                                    included: the body, or the next request, starts at head + head_len */
    const unsigned char *method; /* the method, case-sensitive ("GET") */
    size_t method_len;
    const unsigned char *target; /* the request-target as sent ("/a/b?c") */
    size_t target_len;
    const unsigned char *path;   /* the target's path without the query ("/a/b"); "/" for an
                                    absolute-form target without one (then a static string of
                                    the library's); empty for the authority and asterisk forms */
    size_t path_len;
    uint64_t content_length;     /* with CANNED_FRAMING_LENGTH, the body's length (> 0); else 0 */
    size_t field_count;          /* the number of header fields */
    int minor_version;           /* 0 for HTTP/1.0, 1 for HTTP/1.1 */
    int form;                    /* CANNED_FORM_* */
    int framing;                 /* CANNED_FRAMING_* */
    bool keep_alive;             /* the connection stays open after the response (§9.3) */
    bool expect_continue;        /* an HTTP/1.1 request with a body and Expect: 100-continue */
    bool is_head;                /* the method is HEAD: answer without a body */
} canned_request;

/* Parse the bytes received so far of one request head.
 *
 * buf[0 .. len) holds the request from its first byte. After CANNED_PARTIAL, call again with
 * the same bytes followed by more (the buffer may move; its first len bytes must not change:
 * bytes already examined are not examined again, so a change to them gives a result that is
 * safe but meaningless). Each byte is examined once however the bytes arrive, and the result
 * does not depend on how they were split.
 *
 * Returns:
 *   CANNED_COMPLETE: *request describes the head, which takes request->head_len bytes of buf
 *     (the rest is body or the next request). The parser is ready for the next request: hand
 *     it the bytes from buf + head_len on (after the body) as a new buffer.
 *   CANNED_PARTIAL: more bytes are needed; *request is not written.
 *   an error of the request (CANNED_E_INVALID_METHOD .. CANNED_E_INVALID_HOST): answer with
 *     canned_code_status(code) and close; canned_parser_position() says where. Further calls
 *     return CANNED_E_BAD_STATE until canned_parser_reset() or canned_parser_init().
 *   a misuse: CANNED_E_NULL_POINTER, CANNED_E_MISALIGNED, CANNED_E_BAD_STATE,
 *     CANNED_E_INPUT_SHRANK (len below the len of the call that returned CANNED_PARTIAL),
 *     CANNED_E_INVALID_ARGUMENT (len over PTRDIFF_MAX). Nothing changes.
 * A head longer than max_head is an error as soon as max_head bytes have arrived, so a buffer
 * of max_head bytes is always enough. */
int canned_parse(canned_parser *parser, const unsigned char *buf, size_t len,
                 canned_request *request);

/* Bytes of the current request examined so far; after an error, the offset in buf of the byte
 * that was rejected (or of the end of the bytes examined), so that buf[0 .. position] holds
 * everything the decision was based on. Returns CANNED_OK or a misuse code. */
int canned_parser_position(const canned_parser *parser, size_t *position);

/* One header field, pointing into the head. */
typedef struct canned_field {
    const unsigned char *name; /* as sent; compare it case-insensitively */
    size_t name_len;
    const unsigned char *value; /* without leading and trailing whitespace; may be empty */
    size_t value_len;
} canned_field;

/* Walk the header fields of a complete head, in order, without copying:
 *
 *     size_t cursor = 0;
 *     canned_field f;
 *     while (canned_request_field(&req, &cursor, &f) == 1) { ... }
 *
 * *cursor is 0 for the first field, then what the last call left in it. Returns 1 when *field
 * holds the next field (and *cursor moved past it), 0 when there are no more fields, or a
 * misuse code: CANNED_E_NULL_POINTER, CANNED_E_INVALID_ARGUMENT (a cursor that is not at the
 * start of a field line of this head). The request and its buffer must be as canned_parse left
 * them: a request canned_parse did not fill in (after CANNED_PARTIAL or an error), or one whose
 * buffer was changed or freed, is not detected and must not be passed. Each call reads one
 * field line, so a walk costs one pass. */
int canned_request_field(const canned_request *request, size_t *cursor, canned_field *field);

/* The first header field named name[0 .. name_len), compared case-insensitively ("host" finds
 * "Host"). Returns 1 when found (in *field), 0 when the head has no such field, or a misuse
 * code as canned_request_field. */
int canned_request_find(const canned_request *request, const char *name, size_t name_len,
                        canned_field *field);

/* ---- The chunked body decoder (RFC 9112 §7.1) ---------------------------------------------- */

#define CANNED_CHUNKED_WORDS 8
/* One decoder: 64 bytes, aligned as uint64_t. Opaque; see the conventions above. */
typedef struct canned_chunked {
    uint64_t opaque[CANNED_CHUNKED_WORDS];
} canned_chunked;

/* sizeof(canned_chunked) as the library was built with. */
size_t canned_chunked_size(void);

/* Initialise a decoder at the start of a chunked body (after a head with
 * CANNED_FRAMING_CHUNKED). max_data: the most bytes of chunk data the body may announce
 * (UINT64_MAX: no limit); past it, canned_chunked_decode returns CANNED_E_BODY_TOO_LARGE.
 * Returns CANNED_OK, CANNED_E_NULL_POINTER or CANNED_E_MISALIGNED. */
int canned_chunked_init(canned_chunked *decoder, uint64_t max_data);

/* Walk the next bytes of a chunked body: chunk sizes, extensions, data and trailers are
 * checked (strictly, as the README's Strictness table says) and skipped, and *consumed says how
 * many of input[0 .. len) belong to the body. Each piece of input is handed in once, in order,
 * any split giving the same result. The data is not copied out: the chunk data are the bytes
 * consumed between size lines.
 *
 * Returns:
 *   CANNED_PARTIAL: all len bytes belong to the body (*consumed == len), which goes on.
 *   CANNED_COMPLETE: the body ended within input; *consumed bytes are its end (the last is
 *     the final LF), and what follows them is the next request. Further calls return
 *     CANNED_E_BAD_STATE.
 *   CANNED_E_BODY_TOO_LARGE: a size line took the announced data past max_data; *consumed
 *     ends right after that line, before its data, however the body was split.
 *   an error of the body (CANNED_E_INVALID_CHUNK_SIZE, CANNED_E_CHUNK_SIZE_OVERFLOW,
 *     CANNED_E_INVALID_CHUNK_EXT, CANNED_E_INVALID_CHUNK_DATA, CANNED_E_INVALID_TRAILER,
 *     CANNED_E_BARE_LF, CANNED_E_BARE_CR): *consumed is 0.
 *   After CANNED_E_BODY_TOO_LARGE or an error, further calls return CANNED_E_BAD_STATE until
 *   canned_chunked_init.
 *   a misuse: CANNED_E_NULL_POINTER, CANNED_E_MISALIGNED, CANNED_E_BAD_STATE,
 *     CANNED_E_INVALID_ARGUMENT (len over PTRDIFF_MAX); *consumed is not written. */
int canned_chunked_decode(canned_chunked *decoder, const unsigned char *input, size_t len,
                          size_t *consumed);

/* Bytes of chunk data announced by the size lines read so far (a chunk counts in full once
 * its size line is complete). Returns CANNED_OK or a misuse code. */
int canned_chunked_data_len(const canned_chunked *decoder, uint64_t *data_len);

#ifdef __cplusplus
}
#endif

#endif /* CANNED_H */
