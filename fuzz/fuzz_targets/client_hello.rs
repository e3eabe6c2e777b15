#![no_main]
//! The ClientHello reader of the TLS listeners (`canned::transport::client_hello`): any bytes,
//! no panic; a decision (a server name, or a refusal) is final whatever bytes follow; a name
//! is printable ASCII.
use canned::transport::client_hello::{Hello, read};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let whole = read(data);
    if whole != Hello::Incomplete {
        let mut more = data.to_vec();
        more.extend_from_slice(&[22, 3, 3, 0, 1, 1]);
        assert_eq!(read(&more), whole);
    }
    if let Hello::Sni(Some(name)) = &whole {
        assert!(!name.is_empty() && name.bytes().all(|b| b.is_ascii_graphic()), "{name:?}");
    }
});
