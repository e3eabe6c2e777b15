//! An HPACK decoder (RFC 7541), for HTTP/2 header blocks: `core` only, no allocation.
//!
//! A [`Decoder`] holds one connection's dynamic table in a fixed 4,096-byte area of its own
//! and turns each header block into fields, handed to a callback as slices of the block, of
//! the table, or of a scratch buffer the caller lends for Huffman-coded strings. Every limit
//! is fixed before the first byte is read: integers, string lengths, the table's size and
//! the header list's, so a hostile block costs time linear in its length and no memory.
//!
//! Strictness (RFC 7541 unless noted); every error is a COMPRESSION_ERROR (RFC 9113 §4.3):
//!
//! | input | outcome | why |
//! |---|---|---|
//! | an integer with more than 4 continuation bytes | [`Error::IntegerOverflow`] | §5.1 lets a decoder limit an integer's octet length; 2^28 is past any index or length in use |
//! | an integer ending in a zero continuation byte after others | [`Error::IntegerNotMinimal`] | the same §5.1 limit: the value has a shorter form, and no encoder sends the longer one |
//! | an integer or string cut off by the end of the block | [`Error::IntegerTruncated`], [`Error::StringTruncated`] | a block arrives whole (RFC 9113 §4.3) |
//! | Huffman padding longer than 7 bits, or not all ones | [`Error::HuffmanPaddingTooLong`], [`Error::HuffmanPaddingNotOnes`] | §5.2 MUST |
//! | EOS inside a Huffman-coded string | [`Error::HuffmanEos`] | §5.2 MUST |
//! | index 0, or past the end of both tables | [`Error::IndexZero`], [`Error::IndexOutOfRange`] | §6.1, §2.3.3 |
//! | a size update above the advertised maximum | [`Error::SizeUpdateTooLarge`] | §6.3, §4.2 MUST |
//! | a size update after a field | [`Error::SizeUpdateNotAtStart`] | §4.2: only at the beginning of a block |
//! | no size update at the start of the first block after the limit fell | [`Error::SizeUpdateMissing`] | §4.2 MUST |
//! | a block of size updates only, or an empty block | accepted | nothing forbids either; the connection decides whether a request lacks fields |
//! | fields adding up to more than the header-list bound | [`Error::HeaderListTooLarge`] | RFC 9113 §6.5.2 |
//! | a Huffman string longer than the scratch left for it | [`Error::StringTooLong`] | the caller's bound |
//!
//! # Example
//!
//! RFC 7541 C.4.1: a request with Huffman-coded strings.
//!
//! ```
//! use canned::hpack::Decoder;
//!
//! let block = [
//!     0x82, 0x86, 0x84, 0x41, 0x8c, 0xf1, 0xe3, 0xc2, 0xe5, 0xf2, 0x3a, 0x6b, 0xa0, 0xab, 0x90,
//!     0xf4, 0xff,
//! ];
//! let mut decoder = Decoder::new(4096);
//! let mut scratch = [0; 64];
//! let mut authority = [0; 32];
//! let mut len = 0;
//! decoder.decode(&block, &mut scratch, |field| {
//!     if field.name == b":authority" {
//!         authority[..field.value.len()].copy_from_slice(field.value);
//!         len = field.value.len();
//!     }
//! })?;
//! assert_eq!(&authority[..len], b"www.example.com");
//! assert_eq!(decoder.table_size(), 57);
//! # Ok::<(), canned::hpack::Error>(())
//! ```
//!
//! | file | holds |
//! |---|---|
//! | `decoder.rs` | [`Decoder`], [`Field`], [`Representation`], [`Source`]: the block's representations (§6) |
//! | `primitive.rs` | integers and string literals (§5) |
//! | `huffman.rs` | the Huffman code (Appendix B) |
//! | `table.rs` | the static table (Appendix A) |
//! | `dynamic.rs` | the dynamic table in its fixed area (§4) |
//! | `error.rs` | [`Error`] |

mod decoder;
mod dynamic;
mod error;
mod huffman;
mod primitive;
mod table;

pub use decoder::{DEFAULT_MAX_HEADER_LIST_SIZE, Decoder, Field, Representation, Source};
pub use dynamic::CAPACITY;
pub use error::Error;
