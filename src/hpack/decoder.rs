//! The decoder: a header block in, its fields out, through the static and dynamic tables
//! (RFC 7541 §3, §6).

use super::dynamic::{CAPACITY, DynamicTable, ENTRY_OVERHEAD, Name};
use super::error::Error;
use super::huffman;
use super::primitive;
use super::table::STATIC;

/// The header-list bound of [`Decoder::new`], in the units of RFC 9113 §6.5.2
/// (SETTINGS_MAX_HEADER_LIST_SIZE): names, values and 32 bytes per field.
pub const DEFAULT_MAX_HEADER_LIST_SIZE: usize = 16 * 1024;

/// An HPACK decoder: the dynamic table of one connection's header blocks, in a fixed area of
/// [`CAPACITY`] bytes owned by the decoder. Nothing is allocated.
///
/// One decoder decodes every header block a peer sends on a connection, in the order they
/// were sent: each block may change the table the next one refers to.
///
/// # Example
///
/// RFC 7541 C.3.1 and C.3.2: two requests, the second referring to the first's entry.
///
/// ```
/// use canned::hpack::{Decoder, Representation};
///
/// let mut decoder = Decoder::new(4096);
/// let mut scratch = [0; 256]; // for Huffman-coded strings
/// let mut fields = Vec::new();
/// let first = b"\x82\x86\x84\x41\x0fwww.example.com";
/// decoder.decode(first, &mut scratch, |f| fields.push((f.name.to_vec(), f.representation)))?;
/// assert_eq!(fields[3], (b":authority".to_vec(), Representation::Incremental));
/// assert_eq!(decoder.table_size(), 57);
///
/// let second = b"\x82\x86\x84\xbe\x58\x08no-cache";
/// decoder.decode(second, &mut scratch, |f| {
///     if f.name == b":authority" {
///         assert_eq!(f.value, b"www.example.com"); // index 62, the dynamic table's newest
///     }
/// })?;
/// assert_eq!(decoder.dynamic_table().count(), 2);
/// # Ok::<(), canned::hpack::Error>(())
/// ```
#[derive(Clone)]
pub struct Decoder {
    table: DynamicTable,
    /// The largest size an update may set: the SETTINGS_HEADER_TABLE_SIZE this side
    /// advertised (RFC 9113 §6.5.2), at most `CAPACITY`.
    limit: usize,
    /// Set when the limit fell below the table's maximum: the smallest limit since, which an
    /// update at the start of the next block must reach (§4.2).
    update_to: Option<usize>,
    max_header_list_size: usize,
}

/// One decoded field. Its slices point into the block, the scratch buffer or the dynamic
/// table, and last until the callback returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field<'a> {
    /// The name, as sent: HPACK does not check it (RFC 9113 §8.2.1 is the connection's).
    pub name: &'a [u8],
    /// The value, as sent.
    pub value: &'a [u8],
    /// How the encoder sent it, and so how an intermediary must forward it.
    pub representation: Representation,
}

impl Field<'_> {
    /// The encoder asked that this field never be indexed, by this hop or any later one
    /// (§7.1.3): it is sensitive, such as a credential or a short cookie.
    pub fn never_indexed(&self) -> bool {
        self.representation == Representation::NeverIndexed
    }
}

/// The field representations of RFC 7541 §6.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Representation {
    /// Name and value from the static or the dynamic table (§6.1).
    Indexed,
    /// A literal that the decoder added to its dynamic table (§6.2.1).
    Incremental,
    /// A literal not added to the table (§6.2.2).
    WithoutIndexing,
    /// A literal not added to the table, which an intermediary must re-encode the same way
    /// (§6.2.3).
    NeverIndexed,
}

/// Where a field's name, and its value, came from: the static table (RFC 7541 Appendix A), by
/// index, or elsewhere ([`Decoder::decode_sourced`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// Name and value are those of the static table's entry at this index (1 to 61, §6.1).
    Static(u8),
    /// The name is that of the static table's entry at this index (1 to 61), the value a
    /// literal (§6.2).
    StaticName(u8),
    /// The dynamic table's entry, or a literal name: known only from the block.
    Other,
}

impl Source {
    /// `static_index(index)` for an index of the static table, `Other` past it (and for 0,
    /// a literal name).
    fn of(index: usize, static_index: fn(u8) -> Source) -> Source {
        match index {
            1..=61 => static_index(index as u8),
            _ => Source::Other,
        }
    }
}

impl Default for Decoder {
    /// A decoder for HTTP/2's initial settings: a 4,096-byte table.
    fn default() -> Decoder {
        Decoder::new(CAPACITY)
    }
}

impl core::fmt::Debug for Decoder {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Decoder")
            .field("entries", &self.table.len())
            .field("table_size", &self.table.size())
            .field("table_max_size", &self.table.max_size())
            .field("limit", &self.limit)
            .field("max_header_list_size", &self.max_header_list_size)
            .finish()
    }
}

impl Decoder {
    /// A decoder whose peer may use a dynamic table of up to `max_table_size` bytes: the
    /// SETTINGS_HEADER_TABLE_SIZE this side advertises (RFC 9113 §6.5.2), and the table's
    /// maximum until the peer's first size update. At most [`CAPACITY`]; a larger value is
    /// taken as `CAPACITY`, so advertise no more than that. The header-list bound is
    /// [`DEFAULT_MAX_HEADER_LIST_SIZE`].
    pub const fn new(max_table_size: usize) -> Decoder {
        let limit = if max_table_size < CAPACITY {
            max_table_size
        } else {
            CAPACITY
        };
        Decoder {
            table: DynamicTable::new(limit),
            limit,
            update_to: None,
            max_header_list_size: DEFAULT_MAX_HEADER_LIST_SIZE,
        }
    }

    /// The same decoder with another header-list bound: the SETTINGS_MAX_HEADER_LIST_SIZE
    /// this side advertises (RFC 9113 §6.5.2). A block whose fields add up to more, counting
    /// 32 bytes per field on top of names and values, is [`Error::HeaderListTooLarge`].
    pub const fn max_header_list_size(mut self, bytes: usize) -> Decoder {
        self.max_header_list_size = bytes;
        self
    }

    /// A new SETTINGS_HEADER_TABLE_SIZE, once the peer has acknowledged it (at most
    /// [`CAPACITY`], as in [`Decoder::new`]). Lower than the table's maximum, it obliges the
    /// peer to begin its next block with a size update down to it (§4.2); otherwise that block
    /// is [`Error::SizeUpdateMissing`].
    pub fn set_max_table_size(&mut self, max_table_size: usize) {
        self.limit = max_table_size.min(CAPACITY);
        if self.limit < self.table.max_size() {
            self.update_to = Some(self.update_to.map_or(self.limit, |u| u.min(self.limit)));
        }
    }

    /// The dynamic table's size as §4.1 counts it: its entries' names and values, plus 32
    /// bytes for each entry.
    pub fn table_size(&self) -> usize {
        self.table.size()
    }

    /// The dynamic table's maximum size: the peer's last size update, or the advertised
    /// maximum before any.
    pub fn table_max_size(&self) -> usize {
        self.table.max_size()
    }

    /// The dynamic table's entries as `(name, value)`, newest (index 62) first.
    pub fn dynamic_table(&self) -> impl Iterator<Item = (&[u8], &[u8])> + '_ {
        (0..self.table.len()).filter_map(|i| {
            let (name, value) = self.table.get(i)?;
            Some((self.table.bytes(name), self.table.bytes(value)))
        })
    }

    /// Decodes one whole header block (the fragments of a HEADERS or PUSH_PROMISE frame and
    /// its CONTINUATION frames, concatenated), calling `on_field` with each field in order.
    ///
    /// Huffman-coded strings are decoded into `scratch`, which one field's name and value
    /// share; a string longer than what is left of it is [`Error::StringTooLong`]. A scratch
    /// buffer as large as the header-list bound never runs short for a block within it.
    ///
    /// `on_field` cannot stop the decoding: the rest of the block must still be decoded for
    /// the table to stay in step with the peer's encoder, even when the request it carries is
    /// refused.
    pub fn decode(
        &mut self,
        block: &[u8],
        scratch: &mut [u8],
        mut on_field: impl FnMut(Field<'_>),
    ) -> Result<(), Error> {
        self.decode_sourced(block, scratch, |field, _| on_field(field))
    }

    /// [`Decoder::decode`], telling also which fields came from the static table, by index
    /// ([`Source`]): their names (and values) are RFC 7541 Appendix A's, known before any
    /// block, so a connection may skip checking them again or dispatch on the index.
    ///
    /// ```
    /// use canned::hpack::{Decoder, Source};
    ///
    /// let mut decoder = Decoder::new(4096);
    /// let mut sources = Vec::new();
    /// // :method GET (2), :path with a literal value, :authority added to the table, then
    /// // from it (62).
    /// let block = b"\x82\x04\x02/a\x41\x01h\xbe";
    /// decoder.decode_sourced(block, &mut [0; 64], |_, source| sources.push(source))?;
    /// assert_eq!(
    ///     sources,
    ///     [Source::Static(2), Source::StaticName(4), Source::StaticName(1), Source::Other]
    /// );
    /// # Ok::<(), canned::hpack::Error>(())
    /// ```
    pub fn decode_sourced(
        &mut self,
        block: &[u8],
        scratch: &mut [u8],
        mut on_field: impl FnMut(Field<'_>, Source),
    ) -> Result<(), Error> {
        let mut pos = self.size_updates(block)?;
        let mut list = ListSize {
            size: 0,
            bound: self.max_header_list_size,
        };
        while let Some(&first) = block.get(pos) {
            match first >> 4 {
                8..=15 => {
                    let index = primitive::integer(block, &mut pos, 7)?;
                    let (name, value) = self.entry(index)?;
                    list.add(name, value)?;
                    on_field(
                        Field {
                            name,
                            value,
                            representation: Representation::Indexed,
                        },
                        Source::of(index, Source::Static),
                    );
                }
                2 | 3 => return Err(Error::SizeUpdateNotAtStart),
                4..=7 => self.incremental(block, &mut pos, scratch, &mut list, &mut on_field)?,
                high => {
                    let representation = match high {
                        1 => Representation::NeverIndexed,
                        _ => Representation::WithoutIndexing,
                    };
                    let index = primitive::integer(block, &mut pos, 4)?;
                    let (name, rest) = match index {
                        0 => literal(block, &mut pos, scratch)?,
                        _ => (self.entry(index)?.0, &mut *scratch),
                    };
                    let (value, _) = literal(block, &mut pos, rest)?;
                    list.add(name, value)?;
                    on_field(
                        Field {
                            name,
                            value,
                            representation,
                        },
                        Source::of(index, Source::StaticName),
                    );
                }
            }
        }
        Ok(())
    }

    /// A literal with incremental indexing (§6.2.1): added to the dynamic table, then
    /// reported from it.
    fn incremental(
        &mut self,
        block: &[u8],
        pos: &mut usize,
        scratch: &mut [u8],
        list: &mut ListSize,
        on_field: &mut impl FnMut(Field<'_>, Source),
    ) -> Result<(), Error> {
        let index = primitive::integer(block, pos, 6)?;
        // A name from the dynamic table stays a range: the insertion may move it.
        let (name, rest) = match index {
            0 => {
                let (name, rest) = literal(block, pos, scratch)?;
                (Name::Bytes(name), rest)
            }
            1..=61 => (Name::Bytes(STATIC[index - 1].0), scratch),
            _ => match self.table.get(index - 62) {
                Some((name, _)) => (Name::Table(name), scratch),
                None => return Err(Error::IndexOutOfRange),
            },
        };
        let (value, _) = literal(block, pos, rest)?;
        let name_len = match &name {
            Name::Bytes(b) => b.len(),
            Name::Table(r) => r.len(),
        };
        list.add_lengths(name_len, value.len())?;
        let (name, value) = match self.table.insert(name.clone(), value) {
            Some((n, v)) => (self.table.bytes(n), self.table.bytes(v)),
            // Too large for the table, which is now empty but unwritten (§4.4): a name taken
            // from it is still where it was.
            None => match name {
                Name::Bytes(b) => (b, value),
                Name::Table(r) => (self.table.bytes(r), value),
            },
        };
        on_field(
            Field {
                name,
                value,
                representation: Representation::Incremental,
            },
            Source::of(index, Source::StaticName),
        );
        Ok(())
    }

    /// The size updates a block begins with (§4.2, §6.3), applied; returns where the fields
    /// begin. There may be several: two are needed when the limit fell and rose again
    /// between blocks.
    fn size_updates(&mut self, block: &[u8]) -> Result<usize, Error> {
        let mut pos = 0;
        let mut update_to = self.update_to.take();
        while pos < block.len() && block[pos] >> 5 == 1 {
            let size = primitive::integer(block, &mut pos, 5)?;
            if size > self.limit {
                return Err(Error::SizeUpdateTooLarge);
            }
            if update_to.is_some_and(|u| size <= u) {
                update_to = None;
            }
            self.table.set_max_size(size);
        }
        match update_to {
            Some(_) => Err(Error::SizeUpdateMissing),
            None => Ok(pos),
        }
    }

    /// The name and value at `index` of §2.3.3's index space.
    fn entry(&self, index: usize) -> Result<(&[u8], &[u8]), Error> {
        match index {
            0 => Err(Error::IndexZero),
            1..=61 => Ok(STATIC[index - 1]),
            _ => match self.table.get(index - 62) {
                Some((name, value)) => Ok((self.table.bytes(name), self.table.bytes(value))),
                None => Err(Error::IndexOutOfRange),
            },
        }
    }
}

/// The header list's size so far, against its bound (RFC 9113 §6.5.2).
struct ListSize {
    size: usize,
    bound: usize,
}

impl ListSize {
    fn add(&mut self, name: &[u8], value: &[u8]) -> Result<(), Error> {
        self.add_lengths(name.len(), value.len())
    }

    fn add_lengths(&mut self, name: usize, value: usize) -> Result<(), Error> {
        // Saturating: a block of one-byte references to a 4 KiB entry outgrows a 32-bit
        // count long before it ends, when the bound is none.
        self.size = self.size.saturating_add(name + value + ENTRY_OVERHEAD);
        match self.size > self.bound {
            true => Err(Error::HeaderListTooLarge),
            false => Ok(()),
        }
    }
}

/// The string literal at `pos` (§5.2), and what is left of the scratch buffer after it: in
/// the block as it is, or Huffman-decoded into the front of `scratch`.
fn literal<'a>(
    block: &'a [u8],
    pos: &mut usize,
    scratch: &'a mut [u8],
) -> Result<(&'a [u8], &'a mut [u8]), Error> {
    let lit = primitive::string(block, pos)?;
    if !lit.huffman {
        return Ok((&block[lit.start..lit.end], scratch));
    }
    let n = huffman::decode(&block[lit.start..lit.end], scratch)?;
    let (decoded, rest) = scratch.split_at_mut(n);
    Ok((decoded, rest))
}
