//! What a route answers ([`Spec`]), the fields every response shares ([`Common`]), and which of
//! a route's three heads a response uses ([`KeepAliveForm`]).

use std::sync::Arc;

/// The `Content-Type` of a body given without one, and of canned's own error bodies.
pub const DEFAULT_CONTENT_TYPE: &str = "text/plain; charset=utf-8";

/// Which of a route's heads a response uses: they differ only in their `Connection` field
/// (RFC 9112 §9.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeepAliveForm {
    /// HTTP/1.1, connection stays open.
    KeepAlive11 = 0,
    /// HTTP/1.0 with `Connection: keep-alive`.
    KeepAlive10 = 1,
    /// The connection closes after this response.
    Close = 2,
}

/// What one route answers.
#[derive(Debug, PartialEq, Eq)]
pub struct Spec {
    /// Status code, 200..=599.
    pub status: u16,
    /// The body (not sent for HEAD, nor for 204 and 304).
    pub body: Arc<[u8]>,
    /// `Content-Type`, or none when empty.
    pub content_type: String,
    /// Extra header lines, each `Name: value`, already validated.
    pub headers: Vec<String>,
}

/// Cloned out of line: a route's spec is copied in several places at start-up, and the
/// derived clone is inlined into each.
impl Clone for Spec {
    #[inline(never)]
    fn clone(&self) -> Spec {
        Spec {
            status: self.status,
            body: self.body.clone(),
            content_type: self.content_type.clone(),
            headers: self.headers.clone(),
        }
    }
}

/// Header fields common to every response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Common {
    /// `Server` field value; empty to omit.
    pub server: String,
    /// Send a `Date` field.
    pub date: bool,
}
