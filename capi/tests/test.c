/* capi/tests/test.c: the C library's tests, the same program on Linux and on a microcontroller.
 *
 * The parser's and the chunked decoder's tables (cases.h, ported from tests/parser.rs and
 * tests/chunked.rs), each case one-shot, at every split and byte by byte; one message per rule
 * of the README's Strictness table (strictness.h); the ported decision, limit and pipelining
 * tests; the field walk; then every function handed NULL, zero, misaligned and uninitialised
 * storage and calls out of order, and seeded random input, split at random, checked against
 * itself. Prints one line per failure and ends with "N passed, N failed"; exits 0 only when
 * none failed. Uses nothing of the C library but printf, memcmp, memcpy and memset. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "canned.h"
#include "cases.h"
#include "strictness.h"

/* Rounds of the random test: fewer under an emulated microcontroller (-DRANDOM_ROUNDS=...). */
#ifndef RANDOM_ROUNDS
#define RANDOM_ROUNDS 20000
#endif
/* Its seed: the same inputs every run unless another is given (-DRANDOM_SEED=...). */
#ifndef RANDOM_SEED
#define RANDOM_SEED 0x9e3779b9u
#endif

static unsigned passed, failed;
/* Whether the case being run has failed a check yet: a case counts once. */
static int case_failed;

static void begin(void) { case_failed = 0; }
static void end(void) {
    if (case_failed)
        failed++;
    else
        passed++;
}

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            case_failed = 1;                                                                   \
            printf("FAIL line %d: ", __LINE__);                                                \
            printf(__VA_ARGS__);                                                               \
            printf("\n");                                                                      \
        }                                                                                      \
    } while (0)

static const char *code_name(int code) { return canned_code_name(code); }

static int bytes_equal(const unsigned char *p, size_t n, const char *s) {
    return s != NULL && strlen(s) == n && (n == 0 || memcmp(p, s, n) == 0);
}

/* ---- helpers: parse whole, in pieces ------------------------------------------------------- */

static int parse_once(const unsigned char *in, size_t len, size_t max_head, size_t max_headers,
                      canned_request *req) {
    canned_parser p;
    if (canned_parser_init(&p, max_head, max_headers) != CANNED_OK) return 999;
    return canned_parse(&p, in, len, req);
}

/* Feed in[0..cut) then in[0..len), as bytes arrive; the result of the first call that is not
 * CANNED_PARTIAL. */
static int parse_split(const unsigned char *in, size_t len, size_t cut, canned_request *req) {
    canned_parser p;
    canned_parser_init(&p, CANNED_DEFAULT_MAX_HEAD, CANNED_DEFAULT_MAX_HEADERS);
    int rc = canned_parse(&p, in, cut, req);
    if (rc != CANNED_PARTIAL) return rc;
    return canned_parse(&p, in, len, req);
}

static int parse_bytewise(const unsigned char *in, size_t len, canned_request *req) {
    canned_parser p;
    canned_parser_init(&p, CANNED_DEFAULT_MAX_HEAD, CANNED_DEFAULT_MAX_HEADERS);
    int rc = CANNED_PARTIAL;
    for (size_t k = 0; k <= len && rc == CANNED_PARTIAL; k++) rc = canned_parse(&p, in, k, req);
    return rc;
}

static int same_request(const canned_request *a, const canned_request *b) {
    return a->head == b->head && a->head_len == b->head_len && a->method == b->method &&
           a->method_len == b->method_len && a->target == b->target &&
           a->target_len == b->target_len && a->path_len == b->path_len &&
           memcmp(a->path, b->path, a->path_len) == 0 &&
           a->content_length == b->content_length && a->field_count == b->field_count &&
           a->minor_version == b->minor_version && a->form == b->form &&
           a->framing == b->framing && a->keep_alive == b->keep_alive &&
           a->expect_continue == b->expect_continue && a->is_head == b->is_head;
}

/* Walk the fields of a complete head: as many as field_count, each inside the head, each name
 * a token, values without surrounding whitespace; Host found by name when there is one. */
static void check_fields(const char *name, const canned_request *r) {
    size_t cursor = 0, n = 0;
    canned_field f;
    int rc;
    const unsigned char *end = r->head + r->head_len;
    while ((rc = canned_request_field(r, &cursor, &f)) == 1) {
        n++;
        CHECK(f.name >= r->head && f.name + f.name_len <= end, "%s: field name outside the head", name);
        CHECK(f.value >= r->head && f.value + f.value_len <= end, "%s: field value outside the head", name);
        CHECK(f.name_len > 0 && memchr(f.name, ':', f.name_len) == NULL, "%s: field name", name);
        CHECK(f.value_len == 0 || (f.value[0] != ' ' && f.value[f.value_len - 1] != ' '), "%s: OWS kept", name);
    }
    CHECK(rc == 0, "%s: walk ended with %s", name, code_name(rc));
    CHECK(n == r->field_count, "%s: %lu fields walked, field_count %lu", name, (unsigned long)n, (unsigned long)r->field_count);
    CHECK(canned_request_field(r, &cursor, &f) == 0, "%s: the walk does not stay at its end", name);
    if (r->minor_version == 1) {
        CHECK(canned_request_find(r, "hOsT", 4, &f) == 1, "%s: Host not found", name);
    }
}

/* Walk the fields of a head whose bytes changed under the parser: whatever the walk finds
 * lies inside the head, and it ends. */
static void walk_changed(const canned_request *r) {
    size_t cursor = 0, n = 0;
    canned_field f;
    const unsigned char *end = r->head + r->head_len;
    while (canned_request_field(r, &cursor, &f) == 1 && n++ <= r->head_len) {
        CHECK(f.name >= r->head && f.name + f.name_len <= end, "changed: field name outside the head");
        CHECK(f.value >= r->head && f.value + f.value_len <= end, "changed: field value outside the head");
    }
    CHECK(n <= r->head_len, "changed: the walk does not end");
}

/* ---- the ported tables ----------------------------------------------------------------------- */

static void parser_table(void) {
    for (size_t i = 0; i < sizeof PARSE_CASES / sizeof PARSE_CASES[0]; i++) {
        const struct parse_case *c = &PARSE_CASES[i];
        canned_request r, s;
        begin();
        int rc = parse_once(c->input, c->len, CANNED_DEFAULT_MAX_HEAD, CANNED_DEFAULT_MAX_HEADERS, &r);
        CHECK(rc == c->want, "%s: want %s, got %s", c->name, code_name(c->want), code_name(rc));
        if (rc == CANNED_COMPLETE && c->want == CANNED_COMPLETE) {
            CHECK(r.keep_alive == c->keep_alive, "%s: keep-alive", c->name);
            CHECK(r.framing == c->framing, "%s: framing %d", c->name, r.framing);
            CHECK(r.content_length == c->content_length, "%s: content length", c->name);
            CHECK(bytes_equal(r.path, r.path_len, c->path), "%s: path", c->name);
            CHECK(r.head_len == c->len, "%s: head_len %lu", c->name, (unsigned long)r.head_len);
            CHECK(r.head == c->input, "%s: head is not the buffer", c->name);
            check_fields(c->name, &r);
            /* Every strict prefix of a valid request is partial. */
            for (size_t k = 0; k < c->len; k++) {
                int p = parse_once(c->input, k, CANNED_DEFAULT_MAX_HEAD, CANNED_DEFAULT_MAX_HEADERS, &s);
                CHECK(p == CANNED_PARTIAL, "%s: prefix %lu gives %s", c->name, (unsigned long)k, code_name(p));
            }
        }
        /* Every single cut point, and byte by byte: the one-shot result. */
        for (size_t cut = 0; cut <= c->len; cut++) {
            int p = parse_split(c->input, c->len, cut, &s);
            CHECK(p == rc, "%s: cut at %lu gives %s", c->name, (unsigned long)cut, code_name(p));
            if (p == CANNED_COMPLETE && rc == CANNED_COMPLETE)
                CHECK(same_request(&r, &s), "%s: cut at %lu decides differently", c->name, (unsigned long)cut);
        }
        int p = parse_bytewise(c->input, c->len, &s);
        CHECK(p == rc, "%s: byte by byte gives %s", c->name, code_name(p));
        if (p == CANNED_COMPLETE && rc == CANNED_COMPLETE)
            CHECK(same_request(&r, &s), "%s: byte by byte decides differently", c->name);
        end();
    }
}

/* Decode in[0..len) in pieces ending at cut1 and cut2, as bytes arrive; the code and the
 * bytes consumed in all. */
static int decode_split(const unsigned char *in, size_t len, size_t cut1, size_t cut2,
                        uint64_t max_data, size_t *total) {
    canned_chunked d;
    size_t cuts[3] = {cut1, cut2, len}, at = 0, took;
    int rc = CANNED_PARTIAL;
    canned_chunked_init(&d, max_data);
    *total = 0;
    for (int k = 0; k < 3 && rc == CANNED_PARTIAL; k++) {
        if (cuts[k] < at) continue;
        rc = canned_chunked_decode(&d, in + at, cuts[k] - at, &took);
        if (rc == CANNED_PARTIAL && took != cuts[k] - at) return 998;
        *total += took;
        at = cuts[k];
    }
    return rc;
}

static void chunked_table(void) {
    for (size_t i = 0; i < sizeof CHUNK_CASES / sizeof CHUNK_CASES[0]; i++) {
        const struct chunk_case *c = &CHUNK_CASES[i];
        size_t want_consumed = c->consumed == SIZE_MAX ? c->len : c->consumed, total;
        begin();
        for (size_t cut1 = 0; cut1 <= c->len; cut1++) {
            for (size_t cut2 = cut1; cut2 <= c->len; cut2++) {
                int rc = decode_split(c->input, c->len, cut1, cut2, UINT64_MAX, &total);
                CHECK(rc == c->want, "%s: cuts %lu, %lu give %s", c->name, (unsigned long)cut1, (unsigned long)cut2, code_name(rc));
                if (rc == c->want && rc != CANNED_COMPLETE && rc != CANNED_PARTIAL) continue;
                CHECK(total == want_consumed, "%s: cuts %lu, %lu consume %lu", c->name, (unsigned long)cut1, (unsigned long)cut2, (unsigned long)total);
            }
        }
        /* Byte by byte. */
        canned_chunked d;
        size_t took, sum = 0, k = 0;
        int rc = CANNED_PARTIAL;
        canned_chunked_init(&d, UINT64_MAX);
        for (; k < c->len && rc == CANNED_PARTIAL; k++) {
            rc = canned_chunked_decode(&d, c->input + k, 1, &took);
            sum += took;
        }
        if (c->len == 0) rc = canned_chunked_decode(&d, c->input, 0, &took);
        CHECK(rc == c->want, "%s: byte by byte gives %s", c->name, code_name(rc));
        if (rc == CANNED_COMPLETE || rc == CANNED_PARTIAL)
            CHECK(sum == want_consumed, "%s: byte by byte consumes %lu", c->name, (unsigned long)sum);
        end();
    }
}

/* A whole message as a server sees it: the head, then its body. */
static int canned_message(const unsigned char *in, size_t len, size_t cut) {
    canned_request r;
    int rc = parse_split(in, len, cut, &r);
    if (rc != CANNED_COMPLETE) return rc;
    if (r.framing == CANNED_FRAMING_LENGTH)
        return len - r.head_len >= r.content_length ? CANNED_COMPLETE : CANNED_PARTIAL;
    if (r.framing == CANNED_FRAMING_CHUNKED) {
        canned_chunked d;
        size_t took;
        canned_chunked_init(&d, UINT64_MAX);
        return canned_chunked_decode(&d, in + r.head_len, len - r.head_len, &took);
    }
    return CANNED_COMPLETE;
}

static void strictness_table(void) {
    for (size_t i = 0; i < sizeof STRICT_CASES / sizeof STRICT_CASES[0]; i++) {
        const struct strict_case *c = &STRICT_CASES[i];
        begin();
        for (size_t cut = 0; cut <= c->len; cut++) {
            int rc = canned_message(c->input, c->len, cut);
            CHECK(rc == c->want, "%s (%s), cut at %lu: want %s, got %s", c->row, c->example, (unsigned long)cut,
                  code_name(c->want), code_name(rc));
        }
        end();
    }
}

/* ---- the ported tests of decisions, limits and pipelining ------------------------------------ */

#define S(s) (const unsigned char *)(s), sizeof(s) - 1

static void decisions(void) {
    canned_request r;
    begin();
    CHECK(parse_once(S("HEAD /p?q HTTP/1.0\r\n\r\n"), 8192, 100, &r) == CANNED_COMPLETE, "HEAD");
    CHECK(r.is_head && bytes_equal(r.method, r.method_len, "HEAD"), "is_head, method");
    CHECK(bytes_equal(r.target, r.target_len, "/p?q") && bytes_equal(r.path, r.path_len, "/p"), "target, path");
    CHECK(r.minor_version == 0 && r.form == CANNED_FORM_ORIGIN && !r.keep_alive, "version, form");
    CHECK(parse_once(S("PUT / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n"), 8192, 100, &r) == CANNED_COMPLETE, "PUT");
    CHECK(r.expect_continue && r.field_count == 3, "expect_continue, field_count");
    /* RFC 9110 §10.1.1: ignored in HTTP/1.0, and without a body there is nothing to continue. */
    CHECK(parse_once(S("PUT / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n"), 8192, 100, &r) == CANNED_COMPLETE && !r.expect_continue, "1.0 Expect");
    CHECK(parse_once(S("GET / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\n\r\n"), 8192, 100, &r) == CANNED_COMPLETE && !r.expect_continue, "Expect without a body");
    CHECK(parse_once(S("GET http://a.example HTTP/1.1\r\nHost: a\r\n\r\n"), 8192, 100, &r) == CANNED_COMPLETE, "absolute");
    CHECK(r.form == CANNED_FORM_ABSOLUTE && bytes_equal(r.path, r.path_len, "/"), "absolute-form path");
    CHECK(parse_once(S("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n"), 8192, 100, &r) == CANNED_COMPLETE && r.form == CANNED_FORM_ASTERISK && r.path_len == 0, "asterisk");
    CHECK(parse_once(S("CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n"), 8192, 100, &r) == CANNED_COMPLETE && r.form == CANNED_FORM_AUTHORITY, "authority");
    end();

    /* Field values without OWS; an empty value; names as sent. */
    begin();
    static const unsigned char head[] = "GET / HTTP/1.1\r\nHost:  a \r\nX-Empty:\r\nX-Tab:\tv\t1\t\r\n\r\n";
    CHECK(parse_once(head, sizeof head - 1, 8192, 100, &r) == CANNED_COMPLETE, "fields head");
    const char *want[3][2] = {{"Host", "a"}, {"X-Empty", ""}, {"X-Tab", "v\t1"}};
    size_t cursor = 0;
    canned_field f;
    for (int k = 0; k < 3; k++) {
        CHECK(canned_request_field(&r, &cursor, &f) == 1, "field %d", k);
        CHECK(bytes_equal(f.name, f.name_len, want[k][0]) && bytes_equal(f.value, f.value_len, want[k][1]), "field %d: %s", k, want[k][0]);
    }
    CHECK(canned_request_field(&r, &cursor, &f) == 0, "three fields");
    CHECK(canned_request_find(&r, "x-tab", 5, &f) == 1 && bytes_equal(f.value, f.value_len, "v\t1"), "find x-tab");
    CHECK(canned_request_find(&r, "x-ta", 4, &f) == 0, "find is not a prefix match");
    end();
}

static unsigned char big[9000];

static size_t build(const char *a, char fill, size_t n, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    memcpy(big, a, la);
    memset(big + la, fill, n);
    memcpy(big + la + n, b, lb);
    return la + n + lb;
}

static void limits(void) {
    canned_request r;
    size_t n;
    begin();
    n = build("GET /", 'a', 100, " HTTP/1.1\r\n\r\n");
    CHECK(parse_once(big, n, 64, 2, &r) == CANNED_E_URI_TOO_LONG, "long line: 414");
    CHECK(canned_code_status(CANNED_E_URI_TOO_LONG) == 414, "414");
    n = build("GET / HTTP/1.1\r\nHost: a\r\nX: ", 'a', 100, "\r\n\r\n");
    CHECK(parse_once(big, n, 64, 2, &r) == CANNED_E_HEAD_TOO_LARGE, "long head: 431");
    CHECK(canned_code_status(CANNED_E_HEAD_TOO_LARGE) == 431, "431");
    CHECK(parse_once(S("GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 2\r\n\r\n"), 64, 2, &r) == CANNED_E_TOO_MANY_HEADERS, "many fields: 431");
    /* Exactly at the limit is accepted. */
    static const unsigned char exact[] = "GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\n\r\n";
    CHECK(parse_once(exact, sizeof exact - 1, sizeof exact - 1, 2, &r) == CANNED_COMPLETE, "at the limit");
    CHECK(parse_once(exact, sizeof exact - 1, sizeof exact - 2, 2, &r) == CANNED_E_HEAD_TOO_LARGE, "one over");
    /* A method that long is a bad method; empty lines filling the limit are no request line;
     * a version that does not end within it is a bad version; a long target is 414 however
     * early it is cut. */
    n = build("", 'G', 64, "");
    CHECK(parse_once(big, n, 64, 2, &r) == CANNED_E_INVALID_METHOD, "long method");
    CHECK(parse_once(big, 63, 64, 2, &r) == CANNED_PARTIAL, "long method, 63 bytes");
    for (size_t k = 0; k < 32; k++) memcpy(big + 2 * k, "\r\n", 2);
    CHECK(parse_once(big, 64, 64, 2, &r) == CANNED_E_INVALID_REQUEST_LINE, "empty lines");
    n = build("GET / HTTP/", '1', 60, "");
    CHECK(parse_once(big, n, 64, 2, &r) == CANNED_E_INVALID_VERSION, "long version");
    n = build("GET /", 'a', 59, "");
    CHECK(parse_once(big, n, 64, 2, &r) == CANNED_E_URI_TOO_LONG, "long target cut early");
    /* The default limit: a head of 8 KiB fits, one byte more does not. */
    n = build("GET / HTTP/1.1\r\nHost: a\r\nX: ", 'v', 8192 - 32, "\r\n\r\n");
    CHECK(n == 8192 && parse_once(big, n, 8192, 100, &r) == CANNED_COMPLETE, "8 KiB head");
    n = build("GET / HTTP/1.1\r\nHost: a\r\nX: ", 'v', 8192 - 31, "\r\n\r\n");
    CHECK(parse_once(big, n, 8192, 100, &r) == CANNED_E_HEAD_TOO_LARGE, "8 KiB + 1");
    end();
}

static void pipelining(void) {
    static const unsigned char buf[] =
        "GET /a HTTP/1.1\r\nHost: a\r\n\r\n"
        "HEAD /bb HTTP/1.1\r\nHost: a\r\n\r\n"
        "GET /ccc HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n";
    const size_t lens[3] = {28, 30, 49};
    canned_parser p;
    canned_request r;
    size_t at = 0;
    begin();
    canned_parser_init(&p, 8192, 100);
    for (int i = 0; i < 3; i++) {
        CHECK(canned_parse(&p, buf + at, sizeof buf - 1 - at, &r) == CANNED_COMPLETE, "request %d", i);
        CHECK(r.head_len == lens[i] && r.keep_alive == (i != 2), "request %d: head_len %lu", i, (unsigned long)r.head_len);
        at += r.head_len;
    }
    CHECK(at == sizeof buf - 1, "all consumed");
    CHECK(canned_parse(&p, buf + at, 0, &r) == CANNED_PARTIAL, "nothing left");
    end();

    /* Resume across calls that each add a byte, then the whole head at once. */
    static const unsigned char in[] = "GET / HTTP/1.1\r\nHost: a\r\nX-Long: 0123456789\r\n\r\n";
    size_t pos = 1;
    begin();
    canned_parser_init(&p, 8192, 100);
    for (size_t k = 0; k < 20; k++) CHECK(canned_parse(&p, in, k, &r) == CANNED_PARTIAL, "prefix %lu", (unsigned long)k);
    CHECK(canned_parser_position(&p, &pos) == CANNED_OK && pos == 19, "position %lu", (unsigned long)pos);
    CHECK(canned_parse(&p, in, sizeof in - 1, &r) == CANNED_COMPLETE && r.head_len == sizeof in - 1, "resumed");
    CHECK(canned_parser_position(&p, &pos) == CANNED_OK && pos == 0, "position after a head");
    end();

    /* After an error, the position is the byte rejected. */
    begin();
    canned_parser_init(&p, 8192, 100);
    CHECK(canned_parse(&p, S("GET /a\\b HTTP/1.1\r\n"), &r) == CANNED_E_INVALID_TARGET, "bad target");
    CHECK(canned_parser_position(&p, &pos) == CANNED_OK && pos == 6, "error position %lu", (unsigned long)pos);
    end();
}

static void chunked_api(void) {
    canned_chunked d;
    size_t took;
    uint64_t data;
    static unsigned char mib[1 << 16];
    begin();
    /* A large chunk is skipped in bulk. */
    canned_chunked_init(&d, UINT64_MAX);
    CHECK(canned_chunked_decode(&d, S("10000\r\n"), &took) == CANNED_PARTIAL && took == 7, "size line");
    CHECK(canned_chunked_data_len(&d, &data) == CANNED_OK && data == 0x10000, "announced");
    memset(mib, 'x', sizeof mib);
    CHECK(canned_chunked_decode(&d, mib, sizeof mib, &took) == CANNED_PARTIAL && took == sizeof mib, "data");
    CHECK(canned_chunked_decode(&d, S("\r\n0\r\n\r\nNEXT"), &took) == CANNED_COMPLETE && took == 7, "end");
    /* After the end, further input is refused. */
    CHECK(canned_chunked_decode(&d, S("GET"), &took) == CANNED_E_BAD_STATE, "after the end");
    CHECK(canned_chunked_decode(&d, S(""), &took) == CANNED_E_BAD_STATE, "after the end, empty");
    end();

    /* The data limit: stop right after the size line that passes it, however split. */
    struct { const char *name; uint64_t limit; const unsigned char *in; size_t len; size_t consumed; int rc; uint64_t announced; } cases[] = {
        {"at the limit", 10, S("5\r\n01234\r\n5\r\n56789\r\n0\r\n\r\n"), 25, CANNED_COMPLETE, 10},
        {"one past", 10, S("5\r\n01234\r\n6\r\n56789A\r\n0\r\n\r\n"), 13, CANNED_E_BODY_TOO_LARGE, 11},
        {"first chunk too big", 10, S("b\r\n0123456789A\r\n0\r\n\r\n"), 3, CANNED_E_BODY_TOO_LARGE, 11},
        {"garbage after the size line is not seen", 4, S("5\r\n\000\000"), 3, CANNED_E_BODY_TOO_LARGE, 5},
        {"with an extension", 4, S("5;a=b\r\n01234"), 7, CANNED_E_BODY_TOO_LARGE, 5},
        {"no limit", UINT64_MAX, S("5\r\n01234\r\n0\r\n\r\n"), 15, CANNED_COMPLETE, 5},
        {"zero limit, empty body", 0, S("0\r\n\r\n"), 5, CANNED_COMPLETE, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        begin();
        for (size_t cut = 0; cut <= cases[i].len; cut++) {
            size_t total;
            int rc = decode_split(cases[i].in, cases[i].len, cut, cut, cases[i].limit, &total);
            CHECK(rc == cases[i].rc && total == cases[i].consumed, "%s, cut %lu: %s, %lu", cases[i].name, (unsigned long)cut, code_name(rc), (unsigned long)total);
        }
        canned_chunked_init(&d, cases[i].limit);
        int rc = canned_chunked_decode(&d, cases[i].in, cases[i].len, &took);
        CHECK(canned_chunked_data_len(&d, &data) == CANNED_OK && data == cases[i].announced, "%s: announced %lu", cases[i].name, (unsigned long)data);
        if (rc == CANNED_E_BODY_TOO_LARGE)
            CHECK(canned_chunked_decode(&d, S("0\r\n\r\n"), &took) == CANNED_E_BAD_STATE, "%s: after the limit", cases[i].name);
        end();
    }
}

/* ---- codes ------------------------------------------------------------------------------------- */

static void codes(void) {
    static const struct { int code; const char *name; int status; } want[] = {
        {CANNED_COMPLETE, "complete", 0}, {CANNED_PARTIAL, "partial", 0},
        {CANNED_E_INVALID_METHOD, "invalid_method", 400}, {CANNED_E_INVALID_TARGET, "invalid_target", 400},
        {CANNED_E_INVALID_REQUEST_LINE, "invalid_request_line", 400}, {CANNED_E_INVALID_VERSION, "invalid_version", 400},
        {CANNED_E_UNSUPPORTED_VERSION, "unsupported_version", 505}, {CANNED_E_INVALID_HEADER_NAME, "invalid_header_name", 400},
        {CANNED_E_INVALID_HEADER_VALUE, "invalid_header_value", 400}, {CANNED_E_OBS_FOLD, "obs_fold", 400},
        {CANNED_E_BARE_LF, "bare_lf", 400}, {CANNED_E_BARE_CR, "bare_cr", 400},
        {CANNED_E_MISSING_HOST, "missing_host", 400}, {CANNED_E_DUPLICATE_HOST, "duplicate_host", 400},
        {CANNED_E_INVALID_CONTENT_LENGTH, "invalid_content_length", 400},
        {CANNED_E_CONFLICTING_CONTENT_LENGTH, "conflicting_content_length", 400},
        {CANNED_E_CONTENT_LENGTH_WITH_TRANSFER_ENCODING, "content_length_with_transfer_encoding", 400},
        {CANNED_E_TRANSFER_ENCODING_HTTP10, "transfer_encoding_http10", 400},
        {CANNED_E_CHUNKED_NOT_FINAL, "chunked_not_final", 400},
        {CANNED_E_UNKNOWN_TRANSFER_CODING, "unknown_transfer_coding", 501},
        {CANNED_E_EXPECTATION_FAILED, "expectation_failed", 417}, {CANNED_E_URI_TOO_LONG, "uri_too_long", 414},
        {CANNED_E_HEAD_TOO_LARGE, "head_too_large", 431}, {CANNED_E_TOO_MANY_HEADERS, "too_many_headers", 431},
        {CANNED_E_INVALID_CHUNK_SIZE, "invalid_chunk_size", 400}, {CANNED_E_CHUNK_SIZE_OVERFLOW, "chunk_size_overflow", 400},
        {CANNED_E_INVALID_CHUNK_EXT, "invalid_chunk_ext", 400}, {CANNED_E_INVALID_CHUNK_DATA, "invalid_chunk_data", 400},
        {CANNED_E_INVALID_TRAILER, "invalid_trailer", 400}, {CANNED_E_INVALID_HOST, "invalid_host", 400},
        {CANNED_E_BODY_TOO_LARGE, "body_too_large", 413}, {CANNED_E_NULL_POINTER, "null_pointer", 500},
        {CANNED_E_MISALIGNED, "misaligned", 500}, {CANNED_E_BAD_STATE, "bad_state", 500},
        {CANNED_E_INPUT_SHRANK, "input_shrank", 500}, {CANNED_E_INVALID_ARGUMENT, "invalid_argument", 500},
    };
    begin();
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        CHECK(strcmp(canned_code_name(want[i].code), want[i].name) == 0, "%d: name %s", want[i].code, canned_code_name(want[i].code));
        CHECK(canned_code_status(want[i].code) == want[i].status, "%s: status %d", want[i].name, canned_code_status(want[i].code));
    }
    /* Every int near the codes, and the extremes: a name, never NULL. */
    for (int code = -300; code <= 300; code++) CHECK(canned_code_name(code) != NULL, "%d: NULL name", code);
    CHECK(strcmp(canned_code_name(INT32_MIN), "unknown_code") == 0 && canned_code_status(INT32_MAX) == 0, "extremes");
    CHECK(strcmp(canned_code_name(-29), "unknown_code") == 0 && canned_code_status(-29) == 0, "-29");
    end();
}

/* ---- misuse: NULL, zero, misaligned, uninitialised, out of order --------------------------------- */

static void misuse(void) {
    canned_parser p, zero;
    canned_chunked d, dzero;
    canned_request r;
    canned_field f;
    size_t n = 0, cursor = 0;
    uint64_t data = 0;
    /* Storage one byte past an aligned address: misaligned for every state. (ISO C leaves
     * such a conversion undefined; the compilers here keep the address, which is what a
     * program that got its pointer wrong would hand the library.) */
    static uint64_t raw[2 * CANNED_PARSER_WORDS + 1];
    canned_parser *odd = (canned_parser *)(void *)((unsigned char *)raw + 1);
    canned_chunked *odd_d = (canned_chunked *)(void *)((unsigned char *)raw + 1);
    static const unsigned char get[] = "GET / HTTP/1.1\r\nHost: a\r\n\r\n";
    const size_t glen = sizeof get - 1;

    begin();
    CHECK(sizeof(canned_parser) == canned_parser_size(), "sizeof(canned_parser) %lu, library %lu", (unsigned long)(sizeof(canned_parser)), (unsigned long)(canned_parser_size()));
    CHECK(sizeof(canned_chunked) == canned_chunked_size(), "sizeof(canned_chunked) %lu, library %lu", (unsigned long)(sizeof(canned_chunked)), (unsigned long)(canned_chunked_size()));
    CHECK(_Alignof(canned_parser) == _Alignof(uint64_t) && _Alignof(canned_chunked) == _Alignof(uint64_t), "alignment");
    end();

    begin();
    memset(&zero, 0, sizeof zero);
    memset(&dzero, 0, sizeof dzero);
    /* NULL for each pointer of each function. */
    CHECK(canned_parser_init(NULL, 8192, 100) == CANNED_E_NULL_POINTER, "init NULL");
    CHECK(canned_parser_reset(NULL) == CANNED_E_NULL_POINTER, "reset NULL");
    CHECK(canned_parser_position(NULL, &n) == CANNED_E_NULL_POINTER, "position NULL parser");
    CHECK(canned_parse(NULL, get, 4, &r) == CANNED_E_NULL_POINTER, "parse NULL parser");
    canned_parser_init(&p, 8192, 100);
    CHECK(canned_parser_position(&p, NULL) == CANNED_E_NULL_POINTER, "position NULL out");
    CHECK(canned_parse(&p, NULL, 0, &r) == CANNED_E_NULL_POINTER, "parse NULL buf, 0");
    CHECK(canned_parse(&p, NULL, 10, &r) == CANNED_E_NULL_POINTER, "parse NULL buf");
    CHECK(canned_parse(&p, get, glen, NULL) == CANNED_E_NULL_POINTER, "parse NULL request");
    CHECK(canned_parse(&p, get, glen, &r) == CANNED_COMPLETE, "misuses changed nothing");
    CHECK(canned_request_field(NULL, &cursor, &f) == CANNED_E_NULL_POINTER, "field NULL request");
    CHECK(canned_request_field(&r, NULL, &f) == CANNED_E_NULL_POINTER, "field NULL cursor");
    CHECK(canned_request_field(&r, &cursor, NULL) == CANNED_E_NULL_POINTER, "field NULL field");
    CHECK(canned_request_find(NULL, "host", 4, &f) == CANNED_E_NULL_POINTER, "find NULL request");
    CHECK(canned_request_find(&r, NULL, 4, &f) == CANNED_E_NULL_POINTER, "find NULL name");
    CHECK(canned_request_find(&r, NULL, 0, &f) == CANNED_E_NULL_POINTER, "find NULL name, 0");
    CHECK(canned_request_find(&r, "host", 4, NULL) == CANNED_E_NULL_POINTER, "find NULL field");
    CHECK(canned_request_find(&r, "", 0, &f) == 0, "find an empty name");
    CHECK(canned_chunked_init(NULL, 0) == CANNED_E_NULL_POINTER, "chunked init NULL");
    CHECK(canned_chunked_decode(NULL, get, 1, &n) == CANNED_E_NULL_POINTER, "decode NULL decoder");
    canned_chunked_init(&d, UINT64_MAX);
    CHECK(canned_chunked_decode(&d, NULL, 0, &n) == CANNED_E_NULL_POINTER, "decode NULL input");
    CHECK(canned_chunked_decode(&d, S("0\r\n"), NULL) == CANNED_E_NULL_POINTER, "decode NULL consumed");
    CHECK(canned_chunked_data_len(NULL, &data) == CANNED_E_NULL_POINTER, "data_len NULL decoder");
    CHECK(canned_chunked_data_len(&d, NULL) == CANNED_E_NULL_POINTER, "data_len NULL out");
    CHECK(canned_chunked_decode(&d, S("0\r\n\r\n"), &n) == CANNED_COMPLETE && n == 5, "decoder misuses changed nothing");
    end();

    begin();
    /* Never initialised: zeroed storage, and a decoder handed to the parser (and back). */
    CHECK(canned_parse(&zero, get, glen, &r) == CANNED_E_BAD_STATE, "parse zeroed");
    CHECK(canned_parser_reset(&zero) == CANNED_E_BAD_STATE, "reset zeroed");
    CHECK(canned_parser_position(&zero, &n) == CANNED_E_BAD_STATE, "position zeroed");
    CHECK(canned_chunked_decode(&dzero, S("0\r\n\r\n"), &n) == CANNED_E_BAD_STATE, "decode zeroed");
    CHECK(canned_chunked_data_len(&dzero, &data) == CANNED_E_BAD_STATE, "data_len zeroed");
    canned_chunked_init(&d, 0);
    CHECK(canned_parse((canned_parser *)(void *)&d, get, glen, &r) == CANNED_E_BAD_STATE, "a decoder as a parser");
    CHECK(canned_chunked_decode((canned_chunked *)(void *)&p, S("0\r\n\r\n"), &n) == CANNED_E_BAD_STATE, "a parser as a decoder");
    /* Garbage storage: every byte 0xA5. */
    memset(&zero, 0xA5, sizeof zero);
    CHECK(canned_parse(&zero, get, glen, &r) == CANNED_E_BAD_STATE, "parse garbage");
    memset(&zero, 0, sizeof zero);
    /* Misaligned storage. */
    CHECK(canned_parser_init(odd, 8192, 100) == CANNED_E_MISALIGNED, "init misaligned");
    CHECK(canned_parse(odd, get, glen, &r) == CANNED_E_MISALIGNED, "parse misaligned");
    CHECK(canned_parser_reset(odd) == CANNED_E_MISALIGNED, "reset misaligned");
    CHECK(canned_parser_position(odd, &n) == CANNED_E_MISALIGNED, "position misaligned");
    CHECK(canned_chunked_init(odd_d, 0) == CANNED_E_MISALIGNED, "chunked init misaligned");
    CHECK(canned_chunked_decode(odd_d, get, 1, &n) == CANNED_E_MISALIGNED, "decode misaligned");
    CHECK(canned_chunked_data_len(odd_d, &data) == CANNED_E_MISALIGNED, "data_len misaligned");
    /* Arguments out of range. */
    CHECK(canned_parser_init(&p, 0, 100) == CANNED_E_INVALID_ARGUMENT, "max_head 0");
    CHECK(canned_parser_init(&p, 1, 0) == CANNED_OK, "max_head 1, no fields");
    CHECK(canned_parse(&p, get, 1, &r) == CANNED_E_INVALID_METHOD, "a one-byte head limit");
    canned_parser_init(&p, 8192, 100);
    CHECK(canned_parse(&p, get, SIZE_MAX, &r) == CANNED_E_INVALID_ARGUMENT, "len SIZE_MAX");
    CHECK(canned_parse(&p, get, (SIZE_MAX >> 1) + 1, &r) == CANNED_E_INVALID_ARGUMENT, "len PTRDIFF_MAX + 1");
    CHECK(canned_chunked_decode(&d, get, SIZE_MAX, &n) == CANNED_E_INVALID_ARGUMENT, "decode len SIZE_MAX");
    CHECK(canned_parser_init(&p, SIZE_MAX, SIZE_MAX) == CANNED_OK, "limits capped");
    CHECK(canned_parse(&p, get, glen, &r) == CANNED_COMPLETE, "capped limits parse");
    end();

    begin();
    /* Out of order: after an error, input that shrank, reset. */
    canned_parser_init(&p, 8192, 100);
    CHECK(canned_parse(&p, get, 10, &r) == CANNED_PARTIAL, "partial");
    CHECK(canned_parse(&p, get, 9, &r) == CANNED_E_INPUT_SHRANK, "shrank");
    CHECK(canned_parse(&p, get, 10, &r) == CANNED_PARTIAL, "the same length again");
    CHECK(canned_parse(&p, get, glen, &r) == CANNED_COMPLETE, "then the rest");
    CHECK(canned_parse(&p, S("GET /\n"), &r) == CANNED_E_BARE_LF, "an error");
    CHECK(canned_parse(&p, get, glen, &r) == CANNED_E_BAD_STATE, "after an error");
    CHECK(canned_parser_position(&p, &n) == CANNED_OK && n == 5, "position after the error");
    CHECK(canned_parser_reset(&p) == CANNED_OK, "reset");
    CHECK(canned_parse(&p, get, glen, &r) == CANNED_COMPLETE, "after reset");
    /* A copy is a parser of its own. */
    canned_parser_init(&p, 8192, 100);
    CHECK(canned_parse(&p, get, 10, &r) == CANNED_PARTIAL, "partial before a copy");
    zero = p;
    CHECK(canned_parse(&zero, get, glen, &r) == CANNED_COMPLETE, "the copy goes on");
    CHECK(canned_parse(&p, get, glen, &r) == CANNED_COMPLETE, "the original goes on");
    end();

    begin();
    /* Field cursors that no call returned, and requests canned_parse did not write. */
    canned_parser_init(&p, 8192, 100);
    CHECK(canned_parse(&p, get, glen, &r) == CANNED_COMPLETE, "head for cursors");
    /* The head's lines start at 0, 16 (Host) and 25 (the final CRLF); it ends at 27. */
    size_t bad[] = {1, 2, 15, 17, 24, 26, 28, 1000, SIZE_MAX};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cursor = bad[i];
        int rc = canned_request_field(&r, &cursor, &f);
        CHECK(rc == CANNED_E_INVALID_ARGUMENT && cursor == bad[i], "cursor %lu: %s", (unsigned long)bad[i], code_name(rc));
    }
    cursor = 16;
    CHECK(canned_request_field(&r, &cursor, &f) == 1 && cursor == 25 && bytes_equal(f.name, f.name_len, "Host"), "cursor at Host");
    CHECK(canned_request_field(&r, &cursor, &f) == 0 && cursor == 25, "cursor at the final CRLF");
    cursor = 27;
    CHECK(canned_request_field(&r, &cursor, &f) == 0, "cursor at the end of the head");
    canned_request junk = r;
    junk.method = get + glen;
    cursor = 0;
    CHECK(canned_request_field(&junk, &cursor, &f) == CANNED_E_INVALID_ARGUMENT, "method past the head");
    junk.method = get;
    junk.head = get + 1;
    cursor = 0;
    CHECK(canned_request_field(&junk, &cursor, &f) == CANNED_E_INVALID_ARGUMENT, "method before the head");
    junk = r;
    junk.head = NULL;
    CHECK(canned_request_field(&junk, &cursor, &f) == CANNED_E_NULL_POINTER, "head NULL");
    junk = r;
    junk.head_len = SIZE_MAX;
    CHECK(canned_request_field(&junk, &cursor, &f) == CANNED_E_INVALID_ARGUMENT, "head_len SIZE_MAX");
    junk = r;
    junk.head_len = 20; /* cut inside the Host line: no complete field line */
    cursor = 0;
    CHECK(canned_request_field(&junk, &cursor, &f) == 0, "a cut head has no field");
    memset(&junk, 0, sizeof junk);
    CHECK(canned_request_field(&junk, &cursor, &f) == CANNED_E_NULL_POINTER, "zeroed request");
    end();
}

/* ---- random input ------------------------------------------------------------------------------- */

static uint32_t rng = RANDOM_SEED;
static uint32_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

/* Pieces a request is made of, and bytes that break it: random input that reaches deep. */
static const char *const PIECES[] = {
    "GET ", "POST ", "HEAD ", "CONNECT ", "OPTIONS ", "/", "/a?b=c", "http://h/", "a:1", "*", "%41", "%4",
    " HTTP/1.1\r\n", " HTTP/1.0\r\n", " HTTP/2.0\r\n", "Host: a\r\n", "Host: [::1]:80\r\n",
    "Content-Length: 5\r\n", "Content-Length: 5, 6\r\n", "Transfer-Encoding: chunked\r\n",
    "Transfer-Encoding: gzip, chunked\r\n", "Connection: close\r\n", "Expect: 100-continue\r\n",
    "X: y\r\n", " folded\r\n", "\r\n", "\r\n\r\n", "\r", "\n", " ", "\t", ":", "\x00", "\x7f",
    "\xff", "[", "]", "#", "5\r\nhello\r\n", "0\r\n\r\n", ";a=\"b\"", "fffffffffffffffff\r\n",
};

static void random_input(void) {
    static unsigned char in[600], copy[600];
    begin();
    for (int round = 0; round < RANDOM_ROUNDS; round++) {
        size_t len = 0;
        int parts = (int)(next() % 12);
        for (int k = 0; k < parts; k++) {
            const char *s = PIECES[next() % (sizeof PIECES / sizeof PIECES[0])];
            size_t n = strlen(s) + (s[0] == 0); /* "\x00" is one NUL byte */
            if (len + n > sizeof in) break;
            memcpy(in + len, s, n);
            len += n;
        }
        for (int k = (int)(next() % 3); k > 0 && len > 0; k--) in[next() % len] = (unsigned char)next();
        size_t max_head = 1 + next() % 700;
        canned_request r, s;
        int once = parse_once(in, len, max_head, next() % 8, &r);
        /* Split at random, with the same limits. */
        canned_parser p;
        canned_parser_init(&p, max_head, 100);
        int whole = canned_parse(&p, in, len, &s);
        canned_parser_init(&p, max_head, 100);
        size_t cut = len ? next() % (len + 1) : 0;
        int split = canned_parse(&p, in, cut, &s);
        if (split == CANNED_PARTIAL) split = canned_parse(&p, in, len, &s);
        CHECK(split == whole, "round %d: split at %lu gives %s, whole %s", round, (unsigned long)cut, code_name(split), code_name(whole));
        if (once == CANNED_COMPLETE) {
            CHECK(r.head_len <= len, "round %d: head_len past the input", round);
            check_fields("random", &r);
        }
        /* Bytes already examined that change under the parser: meaningless, never unsafe. */
        memcpy(copy, in, len);
        canned_parser_init(&p, max_head, 1 + next() % 8);
        if (canned_parse(&p, copy, cut, &s) == CANNED_PARTIAL) {
            for (int k = 0; k < 4 && cut > 0; k++) copy[next() % cut] = (unsigned char)next();
            if (canned_parse(&p, copy, len, &s) == CANNED_COMPLETE) walk_changed(&s);
        }
        /* The same bytes as a chunked body, one-shot and split. */
        size_t a, b, c2 = len ? next() % (len + 1) : 0;
        int d1 = decode_split(in, len, len, len, UINT64_MAX, &a);
        int d2 = decode_split(in, len, c2, c2 + (len - c2) / 2, UINT64_MAX, &b);
        CHECK(d1 == d2, "round %d: chunked split at %lu gives %s, whole %s", round, (unsigned long)c2, code_name(d2), code_name(d1));
        if (d1 == d2 && (d1 == CANNED_COMPLETE || d1 == CANNED_PARTIAL)) CHECK(a == b, "round %d: chunked consumed", round);
    }
    end();
}

int main(void) {
    codes();
    misuse();
    parser_table();
    chunked_table();
    strictness_table();
    decisions();
    limits();
    pipelining();
    chunked_api();
    random_input();
    printf("canned C library: %lu parser cases, %lu chunked cases, %lu strictness messages, %d random rounds\n",
           (unsigned long)(sizeof PARSE_CASES / sizeof PARSE_CASES[0]), (unsigned long)(sizeof CHUNK_CASES / sizeof CHUNK_CASES[0]),
           (unsigned long)(sizeof STRICT_CASES / sizeof STRICT_CASES[0]), RANDOM_ROUNDS);
    printf("%u passed, %u failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
