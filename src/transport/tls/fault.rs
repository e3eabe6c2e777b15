//! The handshake faults: what canned does after a whole ClientHello instead of a handshake (or,
//! for `drip`, to its handshake), chosen by SNI label or `--tls-case` as a certificate case is.

/// A handshake fault: what canned does after a whole ClientHello instead of a handshake
/// (no TLS library involved), or a handshake paced (`Drip`), chosen as a certificate case is.
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
    /// A real handshake whose server flight leaves in pieces: the first at once, then one
    /// every pause.
    Drip(Drip),
}

/// How a dripped flight is paced: `size` bytes, then a pause of `every_ms`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Drip {
    /// The bytes of one piece, 1 to 16384.
    pub size: u16,
    /// The pause after each piece, 1 ms to 60 s.
    pub every_ms: u32,
}

impl Drip {
    /// `drip` alone: 128 bytes every 100 ms (a flight of about 1.3 KiB in about 1 s).
    const DEFAULT: Drip = Drip {
        size: 128,
        every_ms: 100,
    };

    /// `SIZE-D` of `drip-SIZE-D`: SIZE bytes, D a number of `ms` or `s` (a DNS label holds
    /// no `/` nor `:`, so the fault grammar's `drip:SIZE/D` is spelled with hyphens).
    fn parse(spec: &str) -> Option<Drip> {
        let (size, pause) = spec.split_once('-')?;
        let size: u16 = size.parse().ok().filter(|n| (1..=16384).contains(n))?;
        let every_ms = match pause.strip_suffix("ms") {
            Some(ms) => ms.parse().ok()?,
            None => pause
                .strip_suffix('s')?
                .parse::<u32>()
                .ok()?
                .checked_mul(1000)?,
        };
        (1..=60_000)
            .contains(&every_ms)
            .then_some(Drip { size, every_ms })
    }
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
    (
        "drip",
        "accept, slowly: the flight 128 bytes every 100 ms (drip-SIZE-D: SIZE every D) (curl exit 0)",
    ),
];

impl Fault {
    /// The fault a label names (`alert-70`: an alert of code 70; `drip-16-250ms`: 16 bytes
    /// every 250 ms).
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
            "drip" => Fault::Drip(Drip::DEFAULT),
            _ => match label.strip_prefix("drip-") {
                Some(spec) => Fault::Drip(Drip::parse(spec)?),
                None => Fault::Alert(label.strip_prefix("alert-")?.parse().ok()?),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drip_labels() {
        let d = |size, every_ms| Some(Fault::Drip(Drip { size, every_ms }));
        assert_eq!(Fault::by_name("drip"), d(128, 100));
        assert_eq!(Fault::by_name("DRIP-16-250ms"), d(16, 250));
        assert_eq!(Fault::by_name("drip-1-2s"), d(1, 2000));
        assert_eq!(Fault::by_name("drip-16384-60s"), d(16384, 60_000));
        for bad in [
            "drip-",
            "drip-16",
            "drip-16-",
            "drip-0-1s",
            "drip-16385-1s",
            "drip-16-0ms",
            "drip-16-61s",
            "drip-16-1m",
            "drip-x-1s",
            "drip-16-ms",
            "drip-16-1s-2",
            "drip-16-99999999999s",
        ] {
            assert_eq!(Fault::by_name(bad), None, "{bad}");
        }
    }
}
