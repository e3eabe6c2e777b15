//! The handshake faults: what canned does after a whole ClientHello instead of a handshake,
//! chosen by SNI label or `--tls-case` as a certificate case is.

/// A handshake fault: what canned does after a whole ClientHello instead of a handshake
/// (no TLS library involved), chosen as a certificate case is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// No answer; the header timeout closes the connection.
    Stall,
    /// A fatal alert record with this code (RFC 8446 §6).
    Alert(u8),
    /// Bytes that are no TLS record.
    Garbage,
    /// An HTTP/1.1 400 in plain text: a plain HTTP server on a TLS port.
    Http400,
    /// A FIN.
    Close,
    /// An RST.
    Reset,
    /// A start of a ServerHello record, then a FIN (`true`: an RST).
    MidRecord(bool),
    /// A record header announcing more than 2^14 + 256 bytes (RFC 8446 §5.2).
    RecordOverflow,
}

/// The handshake faults (and `alert-N` for alert code N), chosen as a case is, and what a
/// correct client does (`--tls-list`).
pub const FAULTS: &[(&str, &str)] = &[
    (
        "stall",
        "time out: no ServerHello comes; canned closes at --header-timeout (curl -m 2 exit 28)",
    ),
    (
        "alert",
        "refuse: a fatal handshake_failure alert (alert-N: code N) for a ServerHello (curl exit 35)",
    ),
    (
        "garbage",
        "refuse: 64 bytes that are no TLS record instead of a ServerHello (curl exit 35)",
    ),
    (
        "http-400",
        "refuse: a plain HTTP/1.1 400 answer instead of a ServerHello (curl exit 35)",
    ),
    (
        "close",
        "refuse: the connection closed (FIN) after the ClientHello (curl exit 35)",
    ),
    (
        "reset",
        "refuse: the connection reset (RST) after the ClientHello (curl exit 35)",
    ),
    (
        "close-mid-record",
        "refuse: a ServerHello record cut short by a FIN (curl exit 35)",
    ),
    (
        "reset-mid-record",
        "refuse: a ServerHello record cut short by an RST (curl exit 35)",
    ),
    (
        "record-overflow",
        "refuse: a record header announcing 16641 bytes, over TLS's limit (curl exit 35)",
    ),
];

impl Fault {
    /// The fault a label names (`alert-70`: an alert of code 70).
    pub fn by_name(label: &str) -> Option<Fault> {
        let label = label.to_ascii_lowercase();
        Some(match label.as_str() {
            "stall" => Fault::Stall,
            // handshake_failure (RFC 8446 §6.2).
            "alert" => Fault::Alert(40),
            "garbage" => Fault::Garbage,
            "http-400" => Fault::Http400,
            "close" => Fault::Close,
            "reset" => Fault::Reset,
            "close-mid-record" => Fault::MidRecord(false),
            "reset-mid-record" => Fault::MidRecord(true),
            "record-overflow" => Fault::RecordOverflow,
            _ => Fault::Alert(label.strip_prefix("alert-")?.parse().ok()?),
        })
    }
}
