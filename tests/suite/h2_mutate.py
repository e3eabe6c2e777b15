# Decode each HTTP/2 variant canned sent (tests/suite/h2_mutate.rs) on its own, with a raw frame
# parser and Python's `hpack`, and check that it breaks the rule its id names.
# argv[1]: a file of lines "ID HEX", the frames sent on the request's stream 1 (the server's
# own SETTINGS and its ACK of the client's left out). Prints "ok", or each failure.
import struct
import sys

import hpack

DATA, HEADERS, PRIORITY, RST, SETTINGS, PUSH, PING, GOAWAY, WU, CONT = range(10)
END_STREAM, END_HEADERS, PADDED, PRIO = 0x1, 0x4, 0x8, 0x20
MAX = (1 << 31) - 1


def frames(b):
    out = []
    while b:
        assert len(b) >= 9, "a partial frame header"
        n = int.from_bytes(b[:3], "big")
        t, fl, sid = b[3], b[4], int.from_bytes(b[5:9], "big") & MAX
        assert len(b) >= 9 + n, "a partial frame"
        out.append((t, fl, sid, b[9 : 9 + n]))
        b = b[9 + n :]
    return out


def fragment(t, fl, p):
    """A HEADERS or CONTINUATION frame's block fragment, padding and priority removed."""
    if t == HEADERS:
        pad = 0
        if fl & PADDED:
            pad, p = p[0], p[1:]
        if fl & PRIO:
            p = p[5:]
        return p[: len(p) - pad]
    return p


def decode(block):
    d = hpack.Decoder()
    d.max_allowed_table_size = 4096
    return d.decode(block, raw=True)


def blocks(fs, sid=1):
    """The decoded header blocks on stream `sid`, in order, each (fields, end_stream)."""
    out, acc, end = [], None, False
    for t, fl, s, p in fs:
        if s != sid or t not in (HEADERS, CONT):
            continue
        if t == HEADERS:
            acc, end = b"", bool(fl & END_STREAM)
        acc += fragment(t, fl, p)
        if fl & END_HEADERS:
            out.append((decode(acc), end))
    return out


def fields(fs):
    return blocks(fs)[0][0]


def names(fs):
    return [n for n, _ in fields(fs)]


def value(fs, name):
    return [v for n, v in fields(fs) if n == name]


def hpack_error(fs):
    """The error Python's decoder raises on the first block on stream 1 ("" if none)."""
    try:
        blocks(fs)
        return ""
    except (hpack.HPACKError, hpack.HPACKDecodingError) as e:
        return type(e).__name__


def data_len(fs, sid=1):
    n = 0
    for t, fl, s, p in fs:
        if t == DATA and s == sid:
            if fl & PADDED:
                p = p[1 : len(p) - p[0]]
            n += len(p)
    return n


def ends(fs, sid=1):
    return any(t in (DATA, HEADERS) and s == sid and fl & END_STREAM for t, fl, s, p in fs)


def settings(fs):
    out = []
    for t, fl, s, p in fs:
        if t == SETTINGS and not fl & 1:
            out += [struct.unpack(">HI", p[i : i + 6]) for i in range(0, len(p) - len(p) % 6, 6)]
    return out


def kinds(fs):
    return [t for t, *_ in fs]


def updates(fs):
    return [(s, int.from_bytes(p, "big")) for t, fl, s, p in fs if t == WU and len(p) == 4]


def is_ok_block(f):
    return f == [(b":status", b"200"), (b"content-type", b"text/plain"), (b"content-length", b"6")]


def status_block(fl):
    return [(b":status", b"100")] == fl


def after_end_stream(fs):
    ended = False
    for t, fl, s, p in fs:
        if s == 1 and ended and t == DATA:
            return True
        ended = ended or (s == 1 and t in (DATA, HEADERS) and fl & END_STREAM)
    return False


CHECKS = {
    "h2-valid": lambda f: kinds(f) == [HEADERS, DATA] and is_ok_block(fields(f)) and ends(f)
    and data_len(f) == 6,
    "h2-frame-too-large": lambda f: any(t == DATA and len(p) > 16384 for t, _, _, p in f),
    "h2-headers-stream-0": lambda f: f[0][0] == HEADERS and f[0][2] == 0,
    "h2-data-stream-0": lambda f: any(t == DATA and s == 0 for t, _, s, _ in f),
    "h2-data-before-headers": lambda f: f[0][0] == DATA and f[0][2] == 1 and HEADERS in kinds(f),
    "h2-data-pad-too-long": lambda f: any(
        t == DATA and fl & PADDED and p[0] >= len(p) for t, fl, _, p in f
    ),
    "h2-headers-pad-too-long": lambda f: any(
        t == HEADERS and fl & PADDED and p[0] >= len(p) for t, fl, _, p in f
    ),
    "h2-data-after-end-stream": after_end_stream,
    "h2-no-end-stream": lambda f: not ends(f) and data_len(f) == 6,
    "h2-cl-too-long": lambda f: int(value(f, b"content-length")[0]) > data_len(f) and ends(f),
    "h2-cl-too-short": lambda f: int(value(f, b"content-length")[0]) < data_len(f) and ends(f),
    "h2-goaway-mid-response": lambda f: kinds(f) == [HEADERS, DATA, GOAWAY, DATA]
    and f[2][3][:4] == b"\0\0\0\0",
    "h2-rst-stream-0": lambda f: f[0][0] == RST and f[0][2] == 0,
    "h2-settings-enable-push": lambda f: (2, 2) in settings(f),
    "h2-settings-window-too-large": lambda f: (4, 1 << 31) in settings(f),
    "h2-settings-frame-size-too-small": lambda f: (5, 16383) in settings(f),
    "h2-settings-ack-with-payload": lambda f: any(
        t == SETTINGS and fl & 1 and p for t, fl, _, p in f
    ),
    "h2-settings-bad-length": lambda f: any(t == SETTINGS and len(p) % 6 for t, _, _, p in f),
    "h2-settings-on-stream": lambda f: any(t == SETTINGS and s != 0 for t, _, s, _ in f),
    "h2-ping-bad-length": lambda f: any(t == PING and len(p) != 8 for t, _, _, p in f),
    "h2-ping-on-stream": lambda f: any(t == PING and s != 0 for t, _, s, _ in f),
    "h2-push-promise": lambda f: any(t == PUSH and s == 1 for t, _, s, _ in f),
    "h2-even-stream": lambda f: all(s % 2 == 0 and s > 0 for *_, s, _ in f)
    and is_ok_block(blocks(f, f[0][2])[0][0]),
    "h2-continuation-without-headers": lambda f: f[0][0] == CONT and HEADERS not in kinds(f),
    "h2-frame-inside-header-block": lambda f: f[0][0] == HEADERS
    and not f[0][1] & END_HEADERS
    and f[1][0] not in (CONT,),
    "h2-window-update-zero": lambda f: (0, 0) in updates(f),
    "h2-window-update-zero-stream": lambda f: (1, 0) in updates(f),
    "h2-window-overflow": lambda f: any(s == 0 and 65535 + i > MAX for s, i in updates(f)),
    "h2-window-overflow-stream": lambda f: any(s == 1 and 65535 + i > MAX for s, i in updates(f)),
    "h2-hpack-index-out-of-range": lambda f: hpack_error(f) == "InvalidTableIndex",
    "h2-hpack-index-zero": lambda f: hpack_error(f) == "InvalidTableIndex",
    "h2-huffman-bad-padding": lambda f: hpack_error(f) == "HPACKDecodingError",
    "h2-huffman-padding-too-long": lambda f: hpack_error(f) == "HPACKDecodingError",
    "h2-huffman-eos": lambda f: hpack_error(f) == "HPACKDecodingError",
    "h2-hpack-table-size-over": lambda f: hpack_error(f) == "InvalidTableSizeError",
    "h2-hpack-table-size-late": lambda f: hpack_error(f) == "HPACKDecodingError",
    "h2-hpack-integer-overflow": lambda f: hpack_error(f) == "HPACKDecodingError",
    "h2-hpack-string-past-end": lambda f: hpack_error(f) == "HPACKDecodingError",
    "h2-status-twice": lambda f: names(f).count(b":status") == 2,
    "h2-status-missing": lambda f: b":status" not in names(f) and data_len(f) == 6,
    "h2-status-two-digits": lambda f: value(f, b":status") == [b"20"],
    "h2-status-letters": lambda f: value(f, b":status") == [b"abc"],
    "h2-status-after-regular": lambda f: not names(f)[0].startswith(b":")
    and b":status" in names(f),
    "h2-request-pseudo": lambda f: b":path" in names(f),
    "h2-unknown-pseudo": lambda f: any(
        n.startswith(b":") and n != b":status" for n in names(f)
    ),
    "h2-header-uppercase": lambda f: any(n != n.lower() for n in names(f)),
    "h2-header-name-space": lambda f: any(b" " in n for n in names(f)),
    "h2-header-value-crlf": lambda f: any(b"\r\n" in v for _, v in fields(f)),
    "h2-header-connection": lambda f: b"connection" in names(f),
    "h2-header-transfer-encoding": lambda f: value(f, b"transfer-encoding") == [b"chunked"],
    "h2-header-keep-alive": lambda f: b"keep-alive" in names(f),
    "h2-1xx-then-200": lambda f: [b for b, _ in blocks(f)][0] == [(b":status", b"100")]
    and is_ok_block(blocks(f)[1][0])
    and ends(f),
    "h2-1xx-end-stream": lambda f: blocks(f) == [([(b":status", b"100")], True)],
    "h2-1xx-after-final": lambda f: is_ok_block(blocks(f)[0][0])
    and status_block(blocks(f)[1][0]),
    "h2-trailers-pseudo": lambda f: kinds(f) == [HEADERS, DATA, HEADERS]
    and any(n.startswith(b":") for n, _ in blocks(f)[1][0])
    and blocks(f)[1][1],
    "h2-trailers-no-end-stream": lambda f: kinds(f) == [HEADERS, DATA, HEADERS] and not ends(f),
    "h2-204-with-data": lambda f: value(f, b":status") == [b"204"] and data_len(f) > 0,
}


def specific():
    """The checks are specific: of a well-formed response, only h2-valid's passes."""
    block = bytes([0x88, 0x0F, 0x10, 10]) + b"text/plain" + bytes([0x0F, 0x0D, 1]) + b"6"
    def frame(t, fl, p):
        return len(p).to_bytes(3, "big") + bytes([t, fl]) + (1).to_bytes(4, "big") + p
    fs = frames(frame(HEADERS, END_HEADERS, block) + frame(DATA, END_STREAM, b"hello\n"))
    passing = []
    for vid, check in CHECKS.items():
        try:
            if check(fs):
                passing.append(vid)
        except Exception:
            pass
    return passing


failures = []
if specific() != ["h2-valid"]:
    failures.append(f"checks that pass on a well-formed response: {specific()}")
seen = []
for line in open(sys.argv[1]):
    vid, hexed = line.split()
    seen.append(vid)
    check = CHECKS.get(vid)
    if check is None:
        failures.append(f"{vid}: no check for this id")
        continue
    try:
        fs = frames(bytes.fromhex(hexed))
        if not fs or not check(fs):
            failures.append(f"{vid}: does not break its rule: {fs!r:.300}")
    except Exception as e:
        failures.append(f"{vid}: {type(e).__name__} {e}")
missing = set(CHECKS) - set(seen)
if missing:
    failures.append(f"not sent: {sorted(missing)}")
print("\n".join(failures) if failures else "ok")
