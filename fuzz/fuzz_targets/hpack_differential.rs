#![no_main]
//! The HPACK decoder against loona-hpack (a dependency of this fuzz crate only), on the
//! scripts of `fuzz/hpack_invariants.rs`: where both accept a block, the fields and then every
//! entry of the dynamic table agree; where one rejects it, the reason is a documented
//! difference below. The oracle's table is read through its public API only, by decoding an
//! indexed field for each dynamic index (which changes nothing).
//!
//! The oracle is given the same advertised table size and no header-list bound; canned gets
//! no bound either and a scratch buffer that no block can overflow, so neither limit
//! separates them.
use canned::hpack::{CAPACITY, Decoder, Error};
use libfuzzer_sys::fuzz_target;
use loona_hpack::decoder::DecoderError;

#[path = "../hpack_invariants.rs"]
mod invariants;

/// Blocks canned rejects and loona-hpack 0.4 accepts, and why canned is right to.
const STRICTER: &[(Error, &str)] = &[
    (
        Error::IntegerNotMinimal,
        "an integer ending in a zero group after others: loona-hpack sums it; canned refuses \
         the longer form of a value (RFC 7541 §5.1 lets a decoder limit an integer's length)",
    ),
    (
        Error::SizeUpdateNotAtStart,
        "a size update after a field: loona-hpack applies it anywhere in a block; RFC 7541 §4.2 \
         allows one only at the beginning",
    ),
    (
        Error::SizeUpdateMissing,
        "no size update after the advertised size fell below the table's: loona-hpack has no \
         notion of it; RFC 7541 §4.2 says the update MUST start the next block",
    ),
];

/// Blocks loona-hpack rejects and canned accepts: a block that ends with a size update.
/// loona-hpack refuses it (`SizeUpdateAtEnd`), which RFC 7541 does not ask for: §4.2 places
/// updates at the start of a block and says nothing against a block of updates alone.
fn oracle_stricter(e: &DecoderError) -> bool {
    matches!(e, DecoderError::SizeUpdateAtEnd)
}

type Pair = (Vec<u8>, Vec<u8>);

fn prefix_agrees(ours: &[Pair], theirs: &[Pair]) {
    let n = ours.len().min(theirs.len());
    assert_eq!(ours[..n], theirs[..n], "the fields before the error differ");
}

/// An indexed field (RFC 7541 §6.1) of `index`.
fn indexed(mut index: usize) -> Vec<u8> {
    if index < 127 {
        return vec![0x80 | index as u8];
    }
    let mut out = vec![0xff];
    index -= 127;
    while index >= 128 {
        out.push(index as u8 | 0x80);
        index >>= 7;
    }
    out.push(index as u8);
    out
}

fn tables_agree(ours: &Decoder, oracle: &mut loona_hpack::Decoder) {
    let entries = invariants::table(ours);
    for i in 0..=entries.len() {
        let theirs = oracle.decode(&indexed(62 + i));
        match entries.get(i) {
            Some(entry) => assert_eq!(theirs.as_deref(), Ok(&[entry.clone()][..]), "entry {i}"),
            None => assert_eq!(theirs, Err(DecoderError::HeaderIndexOutOfBounds), "entry {i}"),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let script = invariants::script(data);
    let limit = script.table_size.min(CAPACITY);
    let mut ours = Decoder::new(limit).max_header_list_size(usize::MAX);
    let mut oracle = loona_hpack::Decoder::new();
    oracle.set_max_allowed_table_size(limit);
    oracle.set_max_table_size(limit);
    for step in &script.steps {
        if let Some(size) = step.new_table_size {
            let size = size.min(CAPACITY);
            ours.set_max_table_size(size);
            oracle.set_max_allowed_table_size(size);
        }
        // The shortest code is 5 bits: no string decodes to more than 8/5 of its length.
        let mut scratch = vec![0; step.block.len() * 8 / 5 + 1];
        let (result, fields) = invariants::decode(&mut ours, step.block, &mut scratch);
        let ours_fields: Vec<Pair> = fields.into_iter().map(|(n, v, _)| (n, v)).collect();
        let mut theirs = Vec::new();
        let oracle_result = oracle.decode_with_cb(step.block, |n, v| {
            theirs.push((n.into_owned(), v.into_owned()))
        });
        match (result, oracle_result) {
            (Ok(()), Ok(())) => {
                assert_eq!(ours_fields, theirs);
                tables_agree(&ours, &mut oracle);
            }
            (Err(e), Ok(())) => {
                assert!(
                    STRICTER.iter().any(|(s, _)| *s == e),
                    "canned rejects with {e} a block loona-hpack accepts"
                );
                prefix_agrees(&ours_fields, &theirs);
                return;
            }
            (Ok(()), Err(e)) => {
                assert!(oracle_stricter(&e), "loona-hpack rejects with {e:?} a block canned accepts");
                prefix_agrees(&ours_fields, &theirs);
                return;
            }
            (Err(_), Err(_)) => {
                prefix_agrees(&ours_fields, &theirs);
                return;
            }
        }
    }
});
