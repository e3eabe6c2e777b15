//! The header and the library agree: every code's number, name and status, the state sizes,
//! the form and framing numbers. The behaviour is tested from C (capi/tests/).

use super::*;
use crate::chunked::canned_chunked_size;
use crate::codes::{ERROR_NAMES, OWN_CODES, canned_code_name, canned_code_status};
use canned::parser::Error;
use core::ffi::CStr;

const HEADER: &str = include_str!("../../include/canned.h");

/// `#define NAME VALUE` lines of the header whose name starts with `prefix`.
fn defines(prefix: &str) -> Vec<(String, i64)> {
    HEADER
        .lines()
        .filter_map(|line| {
            let mut words = line.strip_prefix("#define ")?.split_whitespace();
            let name = words.next()?.strip_prefix(prefix)?;
            let value = words.next()?.parse().ok()?;
            Some((name.to_string(), value))
        })
        .collect()
}

fn name(code: c_int) -> &'static str {
    // SAFETY: canned_code_name returns a static NUL-terminated string.
    unsafe { CStr::from_ptr(canned_code_name(code)) }
        .to_str()
        .unwrap()
}

#[test]
fn error_names_are_the_parsers() {
    for e in Error::ALL {
        assert_eq!(ERROR_NAMES[e.index()].to_str().unwrap(), e.name());
        let code = codes::of_error(e);
        assert_eq!(codes::error_of(code), Some(e));
        assert_eq!(name(code), e.name());
        assert_eq!(canned_code_status(code), c_int::from(e.status()), "{e}");
    }
}

#[test]
fn every_code_of_the_header_is_the_librarys() {
    let errors = defines("CANNED_E_");
    assert_eq!(errors.len(), Error::ALL.len() + OWN_CODES.len() - 2);
    for (define, value) in &errors {
        let code = c_int::try_from(*value).unwrap();
        assert_eq!(name(code), define.to_ascii_lowercase(), "CANNED_E_{define}");
        assert_ne!(canned_code_status(code), 0, "CANNED_E_{define}");
    }
    for (code, own) in OWN_CODES {
        let define = own.to_str().unwrap().to_ascii_uppercase();
        let stated = defines("CANNED_")
            .into_iter()
            .find(|(n, _)| n == &define || n.strip_prefix("E_") == Some(define.as_str()));
        assert_eq!(stated.map(|(_, v)| v), Some(i64::from(code)), "{define}");
    }
    assert_eq!(name(COMPLETE), "complete");
    assert_eq!(name(PARTIAL), "partial");
    assert_eq!(canned_code_status(COMPLETE), 0);
    assert_eq!(canned_code_status(PARTIAL), 0);
    assert_eq!(canned_code_status(codes::BODY_TOO_LARGE), 413);
    assert_eq!(canned_code_status(codes::BAD_STATE), 500);
    for unknown in [2, -29, -99, -106, c_int::MIN, c_int::MAX] {
        assert_eq!(name(unknown), "unknown_code");
        assert_eq!(canned_code_status(unknown), 0);
    }
}

#[test]
fn state_sizes_are_the_headers() {
    let words = |name: &str| {
        defines("CANNED_")
            .into_iter()
            .find(|(n, _)| n == name)
            .unwrap()
            .1
    };
    assert_eq!(canned_parser_size() as i64, words("PARSER_WORDS") * 8);
    assert_eq!(canned_chunked_size() as i64, words("CHUNKED_WORDS") * 8);
    assert_eq!(align_of::<ParserStorage>(), align_of::<u64>());
}

#[test]
fn forms_and_framings_are_the_headers() {
    let heads: [(&[u8], &str, &str); 4] = [
        (b"GET / HTTP/1.1\r\nHost: a\r\n\r\n", "ORIGIN", "NONE"),
        (
            b"POST http://a/ HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\n",
            "ABSOLUTE",
            "LENGTH",
        ),
        (
            b"CONNECT a:1 HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n",
            "AUTHORITY",
            "CHUNKED",
        ),
        (b"OPTIONS * HTTP/1.0\r\n\r\n", "ASTERISK", "NONE"),
    ];
    let stated = |kind: &str, name: &str| {
        defines(&format!("CANNED_{kind}_"))
            .into_iter()
            .find(|(n, _)| n == name)
            .unwrap()
            .1
    };
    for (head, form, framing) in heads {
        let mut p = ParserStorage { words: [0; 16] };
        let mut r = core::mem::MaybeUninit::<Request>::uninit();
        // SAFETY: every pointer is to a live local of the right type and size.
        let r = unsafe {
            assert_eq!(canned_parser_init(&mut p, 8192, 100), COMPLETE);
            assert_eq!(
                canned_parse(&mut p, head.as_ptr(), head.len(), r.as_mut_ptr()),
                0
            );
            r.assume_init()
        };
        assert_eq!(i64::from(r.form), stated("FORM", form), "{form}");
        assert_eq!(
            i64::from(r.framing),
            stated("FRAMING", framing),
            "{framing}"
        );
    }
}
