//! The HPACK decoder's fuzz input and invariants, shared by the `hpack` and
//! `hpack_differential` targets and by the corpus replay in `tests/suite/hpack.rs`.
//!
//! An input is a script: one byte of settings (the advertised table size, the header-list
//! bound, the scratch buffer's length), then steps of one control byte, a little-endian u16
//! length and that many bytes of header block (fewer when the input ends). A control byte with
//! its top bit set advertises a new table size before its block. The sizes are small, so that
//! eviction, the area's wrap, a full scratch buffer and the list bound are all within reach of
//! short inputs.

#![allow(dead_code)] // each user takes the part it needs

use canned::hpack::{CAPACITY, Decoder, Representation};

/// Advertised table sizes: 0 (nothing may be added), one entry, a few, the RFC's C.5 size,
/// the whole area, and one above it (taken as the area).
pub const TABLE_SIZES: [usize; 8] = [0, 32, 64, 100, 256, 1000, 4096, 5000];
/// Header-list bounds, the last one none.
pub const LIST_BOUNDS: [usize; 8] = [0, 40, 100, 300, 1000, 4096, 16384, usize::MAX];
/// Scratch buffer lengths.
pub const SCRATCH_LENS: [usize; 4] = [0, 8, 100, 8192];

/// A decoded input.
pub struct Script<'a> {
    pub table_size: usize,
    pub list_bound: usize,
    pub scratch_len: usize,
    pub steps: Vec<Step<'a>>,
}

/// One header block, and the table size advertised before it, if any.
pub struct Step<'a> {
    pub new_table_size: Option<usize>,
    pub block: &'a [u8],
}

pub fn script(data: &[u8]) -> Script<'_> {
    let (settings, mut rest) = match data.split_first() {
        Some((&s, rest)) => (s, rest),
        None => (0, data),
    };
    let mut steps = Vec::new();
    while let Some((&control, after)) = rest.split_first() {
        let len = match after {
            [lo, hi, ..] => usize::from(u16::from_le_bytes([*lo, *hi])),
            _ => 0,
        };
        let after = after.get(2..).unwrap_or_default();
        let (block, next) = after.split_at(len.min(after.len()));
        steps.push(Step {
            new_table_size: (control & 0x80 != 0).then(|| TABLE_SIZES[usize::from(control & 7)]),
            block,
        });
        rest = next;
    }
    Script {
        table_size: TABLE_SIZES[usize::from(settings & 7)],
        list_bound: LIST_BOUNDS[usize::from(settings >> 3 & 7)],
        scratch_len: SCRATCH_LENS[usize::from(settings >> 6)],
        steps,
    }
}

/// A field, owned.
pub type Owned = (Vec<u8>, Vec<u8>, Representation);

/// Decodes one block, collecting its fields.
pub fn decode(
    decoder: &mut Decoder,
    block: &[u8],
    scratch: &mut [u8],
) -> (Result<(), canned::hpack::Error>, Vec<Owned>) {
    let mut fields = Vec::new();
    let result = decoder.decode(block, scratch, |f| {
        fields.push((f.name.to_vec(), f.value.to_vec(), f.representation))
    });
    (result, fields)
}

pub fn table(decoder: &Decoder) -> Vec<(Vec<u8>, Vec<u8>)> {
    decoder
        .dynamic_table()
        .map(|(n, v)| (n.to_vec(), v.to_vec()))
        .collect()
}

fn size(name: &[u8], value: &[u8]) -> usize {
    name.len() + value.len() + 32
}

/// Runs a script through one decoder, checking after every block: the same block decoded
/// by a copy gives the same outcome; the table's size is what its entries add up to and never
/// above its maximum, which is never above the area, and moved only to what was advertised;
/// the fields reported stay within the header-list bound; and the newest entries are the
/// block's incrementally indexed fields, as many of them as fit.
pub fn check(data: &[u8]) {
    let s = script(data);
    let mut decoder = Decoder::new(s.table_size).max_header_list_size(s.list_bound);
    let mut scratch = vec![0; s.scratch_len];
    let mut limit = s.table_size.min(CAPACITY);
    assert_eq!(decoder.table_max_size(), limit);
    for step in &s.steps {
        if let Some(size) = step.new_table_size {
            decoder.set_max_table_size(size);
            limit = size.min(CAPACITY);
        }
        let max_before = decoder.table_max_size();
        let mut copy = decoder.clone();
        let (result, fields) = decode(&mut decoder, step.block, &mut scratch);
        let (copy_result, copy_fields) = decode(&mut copy, step.block, &mut scratch);
        assert_eq!(result, copy_result);
        assert_eq!(fields, copy_fields);
        assert_eq!(table(&decoder), table(&copy));

        let entries = table(&decoder);
        let max = decoder.table_max_size();
        assert!(max <= CAPACITY);
        assert!(
            max == max_before || max <= limit,
            "max {max}, limit {limit}"
        );
        let total: usize = entries.iter().map(|(n, v)| size(n, v)).sum();
        assert_eq!(total, decoder.table_size());
        assert!(decoder.table_size() <= max);
        let list: usize = fields.iter().map(|(n, v, _)| size(n, v)).sum();
        assert!(list <= s.list_bound, "list {list} over {}", s.list_bound);
        if result.is_err() {
            return; // the connection is closed with COMPRESSION_ERROR
        }
        assert!(max <= limit);
        // Size updates come first, so one maximum held for every field of the block.
        let (mut i, mut filled) = (0, 0);
        for (n, v, _) in fields
            .iter()
            .rev()
            .filter(|f| f.2 == Representation::Incremental)
        {
            if size(n, v) > max {
                // It emptied the table (RFC 7541 §4.4): what is there came after it.
                assert_eq!(entries.len(), i);
                break;
            }
            filled += size(n, v);
            if filled > max {
                break;
            }
            assert_eq!(entries[i], (n.clone(), v.clone()), "entry {i}");
            i += 1;
        }
    }
}
