/* capi/benches/flash.c: the smallest Cortex-M4F program that links one parser's request-head
 * parse (-DPARSER_CANNED, -DPARSER_PICO, -DPARSER_LLHTTP; none: the empty program the others
 * are measured against) and, with -DWITH_CHUNKED, its chunked body decoder, so that the size
 * of the linked program, less the empty one's, is the flash the parser takes: its code, its
 * tables and what it needs of the C library. The input comes through volatiles, so nothing is
 * folded away. */
#include <stddef.h>
#include <stdint.h>

const unsigned char *volatile input;
volatile size_t input_len;

/* canned's panic handler calls abort (no path reaches it): a one-instruction stand-in, so that
 * the C library's abort and its signal machinery are not counted. */
void abort(void) {
    for (;;) {
    }
}

#if defined(PARSER_CANNED)
#include "canned.h"

int entry(void) {
    canned_parser p;
    canned_request r;
    canned_parser_init(&p, 8192, 100);
    int rc = canned_parse(&p, input, input_len, &r);
#ifdef WITH_CHUNKED
    canned_chunked d;
    size_t took;
    canned_chunked_init(&d, UINT64_MAX);
    rc += canned_chunked_decode(&d, input + r.head_len, input_len - r.head_len, &took);
#endif
    return rc;
}

#elif defined(PARSER_PICO)
#include "picohttpparser.h"

int entry(void) {
    const char *method, *path;
    size_t method_len, path_len, fields = 100;
    int minor;
    struct phr_header headers[100];
    int rc = phr_parse_request((const char *)input, input_len, &method, &method_len, &path,
                               &path_len, &minor, headers, &fields, 0);
#ifdef WITH_CHUNKED
    struct phr_chunked_decoder d = {0};
    size_t size = input_len;
    d.consume_trailer = 1;
    rc += (int)phr_decode_chunked(&d, (char *)(uintptr_t)input, &size);
#endif
    return rc;
}

#elif defined(PARSER_LLHTTP)
#include "llhttp.h"

/* llhttp decodes chunked bodies inside llhttp_execute: WITH_CHUNKED adds nothing. */
int entry(void) {
    llhttp_t p;
    llhttp_settings_t s;
    llhttp_settings_init(&s);
    llhttp_init(&p, HTTP_REQUEST, &s);
    return (int)llhttp_execute(&p, (const char *)input, input_len);
}

#else
int entry(void) { return (int)input_len + (int)(uintptr_t)input; }
#endif
