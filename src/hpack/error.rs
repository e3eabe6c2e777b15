//! Why a header block was rejected: one kind per cause, each a COMPRESSION_ERROR.

/// Why a header block could not be decoded.
///
/// Every kind is a decoding error in the sense of RFC 7541, which HTTP/2 answers with a
/// connection error of type COMPRESSION_ERROR (RFC 9113 §4.3): [`Error::code`]. After an error
/// the decoder's table may hold part of the block's changes and no longer matches the peer's
/// encoder, so the connection that owns it must not decode another block with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Error {
    /// An integer with more continuation bytes than four, which would exceed 2^28 (RFC 7541
    /// §5.1: encodings that exceed implementation limits in value or octet length are errors).
    IntegerOverflow,
    /// An integer whose last continuation byte adds nothing (`0x80` groups before a final
    /// `0x00`): a longer encoding of a value that has a shorter one (§5.1, an octet-length
    /// limit: no encoder needs it, and it only makes a block longer to scan).
    IntegerNotMinimal,
    /// The block ends inside an integer (§5.1).
    IntegerTruncated,
    /// A string literal's length reaches past the end of the block (§5.2).
    StringTruncated,
    /// A Huffman-coded string decodes to more bytes than the caller's scratch buffer holds.
    StringTooLong,
    /// A Huffman-coded string ends in more than 7 bits that are not a whole code (§5.2).
    HuffmanPaddingTooLong,
    /// A Huffman-coded string ends in bits that are not the most significant bits of EOS, that
    /// is not all ones (§5.2).
    HuffmanPaddingNotOnes,
    /// A Huffman-coded string holds the EOS symbol (§5.2).
    HuffmanEos,
    /// An index of 0, in an indexed field or as a literal's name (§6.1).
    IndexZero,
    /// An index past the end of the static and dynamic tables together (§2.3.3).
    IndexOutOfRange,
    /// A dynamic table size update above the maximum the decoder advertised (§6.3, RFC 9113
    /// §6.5.2 SETTINGS_HEADER_TABLE_SIZE).
    SizeUpdateTooLarge,
    /// A dynamic table size update after the first field of a block (§4.2).
    SizeUpdateNotAtStart,
    /// A block that does not start with the size update the decoder's lowered maximum asks for
    /// (§4.2: it MUST occur at the beginning of the first block after the change).
    SizeUpdateMissing,
    /// The decoded fields add up to more than the header-list bound, counted as RFC 9113
    /// §6.5.2 counts: name, value and 32 bytes for each field.
    HeaderListTooLarge,
}

impl Error {
    /// Every kind, in declaration order (for counters and tests).
    pub const ALL: [Error; 14] = [
        Error::IntegerOverflow,
        Error::IntegerNotMinimal,
        Error::IntegerTruncated,
        Error::StringTruncated,
        Error::StringTooLong,
        Error::HuffmanPaddingTooLong,
        Error::HuffmanPaddingNotOnes,
        Error::HuffmanEos,
        Error::IndexZero,
        Error::IndexOutOfRange,
        Error::SizeUpdateTooLarge,
        Error::SizeUpdateNotAtStart,
        Error::SizeUpdateMissing,
        Error::HeaderListTooLarge,
    ];

    /// The HTTP/2 error code a connection closes with (RFC 9113 §7): COMPRESSION_ERROR (0x9)
    /// for every kind.
    pub fn code(self) -> u32 {
        0x9
    }

    /// A short snake_case name, for logs and counters.
    pub fn name(self) -> &'static str {
        match self {
            Error::IntegerOverflow => "integer_overflow",
            Error::IntegerNotMinimal => "integer_not_minimal",
            Error::IntegerTruncated => "integer_truncated",
            Error::StringTruncated => "string_truncated",
            Error::StringTooLong => "string_too_long",
            Error::HuffmanPaddingTooLong => "huffman_padding_too_long",
            Error::HuffmanPaddingNotOnes => "huffman_padding_not_ones",
            Error::HuffmanEos => "huffman_eos",
            Error::IndexZero => "index_zero",
            Error::IndexOutOfRange => "index_out_of_range",
            Error::SizeUpdateTooLarge => "size_update_too_large",
            Error::SizeUpdateNotAtStart => "size_update_not_at_start",
            Error::SizeUpdateMissing => "size_update_missing",
            Error::HeaderListTooLarge => "header_list_too_large",
        }
    }
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

impl core::error::Error for Error {}
