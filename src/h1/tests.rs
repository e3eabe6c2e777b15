//! Unit tests of the HTTP/1 state types: the parked drip's packing and the size of a connection.

use super::Http1Conn;
use super::drip::ParkedDrip;
use super::state::Phase;
use crate::response::KeepAliveForm;

/// Every field of a parked drip survives packing into the connection's fields, up to the
/// largest numbers that fit; a larger one does not pack (the work area is kept).
#[test]
fn a_parked_drip_packs_and_unpacks() {
    let top = |bits: u32| (1u64 << bits) - 1;
    for variant in [
        KeepAliveForm::KeepAlive11,
        KeepAliveForm::KeepAlive10,
        KeepAliveForm::Close,
    ] {
        for (linger, head_only) in [(false, false), (true, false), (false, true), (true, true)] {
            for (due_us, next, route) in [
                (0, 0, 0),
                (1_234, 5, 7),
                (
                    top(ParkedDrip::DUE_BITS),
                    top(ParkedDrip::NEXT_BITS) as u32,
                    u16::MAX,
                ),
            ] {
                let w = ParkedDrip {
                    due_us,
                    next,
                    variant,
                    linger,
                    head_only,
                    route,
                };
                let (active, data) = w.pack().unwrap();
                assert_eq!(ParkedDrip::unpack(active, data), w);
            }
        }
    }
    let w = ParkedDrip {
        due_us: 1,
        next: 1,
        variant: KeepAliveForm::Close,
        linger: true,
        head_only: true,
        route: 1,
    };
    assert!(
        ParkedDrip {
            due_us: 1 << ParkedDrip::DUE_BITS,
            ..w
        }
        .pack()
        .is_none()
    );
    assert!(
        ParkedDrip {
            next: 1 << ParkedDrip::NEXT_BITS,
            ..w
        }
        .pack()
        .is_none()
    );
}

/// Memory per connection is a goal (docs/footprint.md): a parked drip lives in the
/// connection's own fields, which stay 24 bytes (`--nocapture` prints the size).
#[test]
fn a_connection_stays_24_bytes() {
    eprintln!("Http1Conn {} bytes", std::mem::size_of::<Http1Conn>());
    assert!(std::mem::size_of::<Http1Conn>() <= 24);
    assert_eq!(std::mem::size_of::<Phase>(), 1);
}

/// The work area's size and its features' parts (`--nocapture` prints them): the echo's
/// capture, the journal's entry, `--control`'s part, the ranges' part, the access log's
/// line and HTTP/2's upgrade settings are in it only when their features are built.
#[test]
fn work_area_size() {
    use std::mem::size_of;
    #[allow(unused_mut)]
    let mut parts = String::new();
    #[cfg(feature = "echo")]
    parts.push_str(&format!(", echo {}", size_of::<crate::echo::Capture>()));
    #[cfg(feature = "journal")]
    parts.push_str(&format!(
        ", journal {}",
        size_of::<crate::journal::Recording>()
    ));
    #[cfg(feature = "control")]
    parts.push_str(&format!(
        ", control {}",
        size_of::<crate::control::Chosen>()
    ));
    #[cfg(feature = "ranges")]
    parts.push_str(&format!(", ranges {}", size_of::<super::state::Ranged>()));
    eprintln!(
        "WorkArea {} bytes{parts}; Http1Conn {}",
        size_of::<super::state::WorkArea>(),
        size_of::<Http1Conn>(),
    );
}
