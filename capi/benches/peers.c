/* capi/benches/peers.c: the benchmark's C side: llhttp driven the way a server drives it (a
 * fresh parser per request, the spans of the target and of every field name and value
 * recorded, as picohttpparser returns them and canned points to them), and the Strictness
 * messages of capi/tests/strictness.h handed to the Rust side. */
#include <stddef.h>

#include "llhttp.h"
#include "strictness.h"

/* What the callbacks record of one request. */
struct capture {
    const char *url;
    size_t url_len;
    struct {
        const char *at;
        size_t len;
    } spans[256];
    size_t spans_len;
    int complete;
};

static int on_url(llhttp_t *p, const char *at, size_t len) {
    struct capture *c = p->data;
    c->url = at;
    c->url_len = len;
    return 0;
}

static int on_span(llhttp_t *p, const char *at, size_t len) {
    struct capture *c = p->data;
    if (c->spans_len < sizeof c->spans / sizeof c->spans[0]) {
        c->spans[c->spans_len].at = at;
        c->spans[c->spans_len].len = len;
        c->spans_len++;
    }
    return 0;
}

/* The message is complete: stop there, the bytes after it are another message's. */
static int on_message_complete(llhttp_t *p) {
    ((struct capture *)p->data)->complete = 1;
    return HPE_PAUSED;
}

static llhttp_settings_t settings;
static int settings_ready;

static void parse(struct capture *c, const unsigned char *in, size_t len, llhttp_errno_t *err) {
    llhttp_t p;
    if (!settings_ready) {
        llhttp_settings_init(&settings);
        settings.on_url = on_url;
        settings.on_header_field = on_span;
        settings.on_header_value = on_span;
        settings.on_message_complete = on_message_complete;
        settings_ready = 1;
    }
    llhttp_init(&p, HTTP_REQUEST, &settings);
    c->spans_len = 0;
    c->complete = 0;
    p.data = c;
    *err = llhttp_execute(&p, (const char *)in, len);
}

/* One request parsed by llhttp: the number of spans recorded (field names and values), or -1
 * when llhttp rejected it or found it incomplete. */
long llhttp_request(const unsigned char *in, size_t len) {
    struct capture c;
    llhttp_errno_t err;
    parse(&c, in, len, &err);
    if ((err != HPE_OK && err != HPE_PAUSED) || !c.complete) return -1;
    return (long)c.spans_len;
}

/* A whole message (head and body): 1 when llhttp accepts it, 0 when it rejects it, 2 when it
 * waits for more. */
int llhttp_message(const unsigned char *in, size_t len) {
    struct capture c;
    llhttp_errno_t err;
    parse(&c, in, len, &err);
    if (err != HPE_OK && err != HPE_PAUSED) return 0;
    return c.complete ? 1 : 2;
}

size_t strict_count(void) { return sizeof STRICT_CASES / sizeof STRICT_CASES[0]; }

const struct strict_case *strict_at(size_t i) { return i < strict_count() ? &STRICT_CASES[i] : NULL; }
