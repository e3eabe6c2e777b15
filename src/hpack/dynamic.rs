//! The dynamic table (RFC 7541 §2.3.2, §4) in one fixed byte area: entries oldest first, each
//! name and value contiguous, so that a field is handed out as a slice of the area.
//!
//! The live entries are one window `bytes[start..end]`; an entry is appended at `end` and
//! evicted from `start`. When the next entry would run past the end of the area the window is
//! moved to the front first (one `copy_within` of at most 4 KiB, after at least the area's
//! free part has been filled since the last move), rather than wrapping: a wrapped entry could
//! not be handed out as one slice. The table's size is counted as §4.1 counts it (32 bytes per
//! entry on top of its bytes), and that size is never above the maximum, which is never above
//! the area, so the area always has room for what the size allows.

use core::ops::Range;

/// The largest table the area holds, in the units of §4.1: HTTP/2's initial
/// SETTINGS_HEADER_TABLE_SIZE (RFC 9113 §6.5.2).
pub const CAPACITY: usize = 4096;

/// What §4.1 adds to an entry's name and value lengths: "an estimated overhead".
pub(super) const ENTRY_OVERHEAD: usize = 32;

/// The most entries a table of `CAPACITY` holds: each has a size of at least 32.
const MAX_ENTRIES: usize = CAPACITY / ENTRY_OVERHEAD;

#[derive(Clone, Copy, Debug)]
struct Entry {
    offset: u16,
    name_len: u16,
    value_len: u16,
}

impl Entry {
    fn end(self) -> usize {
        usize::from(self.offset) + usize::from(self.name_len) + usize::from(self.value_len)
    }

    fn size(self) -> usize {
        usize::from(self.name_len) + usize::from(self.value_len) + ENTRY_OVERHEAD
    }
}

/// Where a new entry's name comes from.
#[derive(Clone, Debug)]
pub(super) enum Name<'a> {
    /// Bytes outside the table: the block or the scratch buffer.
    Bytes(&'a [u8]),
    /// The name of an entry of this table, as `bytes` indexes it: an indexed name (§6.2.1).
    Table(Range<usize>),
}

/// The dynamic table.
#[derive(Clone)]
pub(super) struct DynamicTable {
    bytes: [u8; CAPACITY],
    /// A ring of entries: the oldest at `oldest`, then `len - 1` newer ones.
    entries: [Entry; MAX_ENTRIES],
    oldest: usize,
    len: usize,
    /// The live bytes: `bytes[start..end]` holds the entries, oldest first, without gaps.
    start: usize,
    end: usize,
    /// §4.1: the sum of the entries' sizes.
    size: usize,
    /// The maximum the encoder chose with its last size update (§4.2), at most `CAPACITY`.
    max_size: usize,
}

impl DynamicTable {
    /// An empty table of the given maximum size, which must not exceed `CAPACITY`.
    pub(super) const fn new(max_size: usize) -> DynamicTable {
        DynamicTable {
            bytes: [0; CAPACITY],
            entries: [Entry {
                offset: 0,
                name_len: 0,
                value_len: 0,
            }; MAX_ENTRIES],
            oldest: 0,
            len: 0,
            start: 0,
            end: 0,
            size: 0,
            max_size,
        }
    }

    pub(super) fn size(&self) -> usize {
        self.size
    }

    pub(super) fn max_size(&self) -> usize {
        self.max_size
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The name and value of the entry `index` places from the newest (0 is the newest, the
    /// one after the static table in §2.3.3's index space), as ranges of `bytes`.
    pub(super) fn get(&self, index: usize) -> Option<(Range<usize>, Range<usize>)> {
        if index >= self.len {
            return None;
        }
        let e = self.entries[(self.oldest + self.len - 1 - index) % MAX_ENTRIES];
        let (offset, name_end) = (
            usize::from(e.offset),
            usize::from(e.offset) + usize::from(e.name_len),
        );
        Some((offset..name_end, name_end..e.end()))
    }

    pub(super) fn bytes(&self, range: Range<usize>) -> &[u8] {
        &self.bytes[range]
    }

    /// A dynamic table size update (§6.3): evicts until the table fits (§4.3). The caller has
    /// checked `max_size` against its limit, which is at most `CAPACITY`.
    pub(super) fn set_max_size(&mut self, max_size: usize) {
        debug_assert!(max_size <= CAPACITY);
        self.max_size = max_size;
        while self.size > self.max_size {
            self.evict_oldest();
        }
    }

    /// Only the bookkeeping moves: the evicted bytes stay in place until a later entry
    /// overwrites them, which is what lets a new entry take its name from an entry its own
    /// insertion evicts (§4.4).
    fn evict_oldest(&mut self) {
        let e = self.entries[self.oldest];
        self.size -= e.size();
        self.start = e.end();
        self.oldest = (self.oldest + 1) % MAX_ENTRIES;
        self.len -= 1;
    }

    /// Adds an entry as the newest (§4.4), evicting the oldest ones until it fits. Returns the
    /// new entry's name and value ranges, or `None` when the entry is larger than the maximum
    /// size: the table is then empty and nothing was written, so ranges into it taken before
    /// the call still hold their bytes.
    pub(super) fn insert(
        &mut self,
        name: Name<'_>,
        value: &[u8],
    ) -> Option<(Range<usize>, Range<usize>)> {
        let name_len = match &name {
            Name::Bytes(b) => b.len(),
            Name::Table(r) => r.len(),
        };
        let size = name_len + value.len() + ENTRY_OVERHEAD;
        while self.len > 0 && self.size + size > self.max_size {
            self.evict_oldest();
        }
        if size > self.max_size {
            return None;
        }
        let name = if self.end + name_len + value.len() > CAPACITY {
            self.move_to_front(name)
        } else {
            name
        };
        let at = self.end;
        let value_at = at + name_len;
        match name {
            Name::Bytes(b) => self.bytes[at..value_at].copy_from_slice(b),
            Name::Table(r) => self.bytes.copy_within(r, at),
        }
        self.bytes[value_at..value_at + value.len()].copy_from_slice(value);
        self.entries[(self.oldest + self.len) % MAX_ENTRIES] = Entry {
            offset: at as u16,
            name_len: name_len as u16,
            value_len: value.len() as u16,
        };
        self.len += 1;
        self.size += size;
        self.end = value_at + value.len();
        Some((at..value_at, value_at..self.end))
    }

    /// Moves the live window to the front of the area, keeping a name taken from the table
    /// readable, and returns where that name is now.
    fn move_to_front<'a>(&mut self, name: Name<'a>) -> Name<'a> {
        let (from, live) = (self.start, self.end - self.start);
        let name = match name {
            // The name's entry was evicted by this insertion: its bytes lie before the window,
            // where the move may overwrite them. Put the name right below the window, turn the
            // two round so that the name follows the entries, and move both.
            Name::Table(r) if r.start < from => {
                let n = r.len();
                let below = from - n;
                self.bytes.copy_within(r, below);
                self.bytes[below..self.end].rotate_left(n);
                self.bytes.copy_within(below..self.end, 0);
                Name::Table(live..live + n)
            }
            Name::Table(r) => {
                self.bytes.copy_within(from..self.end, 0);
                Name::Table(r.start - from..r.end - from)
            }
            Name::Bytes(b) => {
                self.bytes.copy_within(from..self.end, 0);
                Name::Bytes(b)
            }
        };
        for i in 0..self.len {
            let e = &mut self.entries[(self.oldest + i) % MAX_ENTRIES];
            e.offset -= from as u16;
        }
        self.start = 0;
        self.end = live;
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(t: &DynamicTable) -> [(usize, usize); 4] {
        let mut out = [(0, 0); 4];
        for (i, slot) in out.iter_mut().enumerate() {
            if let Some((n, v)) = t.get(i) {
                *slot = (n.len(), v.len());
                assert_eq!(n.end, v.start);
            }
        }
        out
    }

    #[test]
    fn eviction_keeps_the_size_within_the_maximum() {
        let mut t = DynamicTable::new(100);
        assert!(t.insert(Name::Bytes(b"a"), &[b'x'; 10]).is_some()); // 43
        assert!(t.insert(Name::Bytes(b"b"), &[b'y'; 20]).is_some()); // 53: 96 in all
        assert_eq!((t.len(), t.size()), (2, 96));
        assert!(t.insert(Name::Bytes(b"c"), b"").is_some()); // 33: evicts a
        assert_eq!((t.len(), t.size()), (2, 86));
        assert_eq!(entries(&t), [(1, 0), (1, 20), (0, 0), (0, 0)]);
        // Larger than the maximum: the table is emptied, nothing is added (§4.4).
        assert!(t.insert(Name::Bytes(b"d"), &[0; 68]).is_none());
        assert_eq!((t.len(), t.size()), (0, 0));
        t.set_max_size(0);
        assert!(t.insert(Name::Bytes(b""), b"").is_none());
    }

    /// A name indexed from the entry its own insertion evicts, when the window must move
    /// (§4.4): the name survives both the eviction and the move.
    #[test]
    fn a_name_from_an_evicted_entry_survives_the_move() {
        let mut t = DynamicTable::new(CAPACITY);
        let big = [b'v'; 3000];
        t.insert(Name::Bytes(b"first"), &big[..2000]).unwrap(); // 2037
        t.insert(Name::Bytes(b"second-name"), &big[..1900]).unwrap(); // 1943: 3980
        // The newest entry's name, for an entry that evicts both.
        let (name, _) = t.get(0).unwrap();
        let (n, v) = t.insert(Name::Table(name), &big[..3000]).unwrap();
        assert_eq!(t.bytes(n), b"second-name");
        assert_eq!(t.bytes(v), &big[..3000]);
        assert_eq!((t.len(), t.size()), (1, 11 + 3000 + 32));
        // The oldest entry's name, evicted, with a live entry left to move.
        let mut t = DynamicTable::new(CAPACITY);
        t.insert(Name::Bytes(b"old"), &big[..1500]).unwrap(); // 1535
        t.insert(Name::Bytes(b"mid"), &big[..1500]).unwrap(); // 1535
        t.insert(Name::Bytes(b"new"), &big[..900]).unwrap(); // 935: 4005
        let (name, _) = t.get(2).unwrap();
        let (n, v) = t.insert(Name::Table(name), &big[..1000]).unwrap(); // evicts old
        assert_eq!((t.bytes(n), t.bytes(v).len()), (&b"old"[..], 1000));
        let (n, v) = t.get(1).unwrap();
        assert_eq!((t.bytes(n), t.bytes(v).len()), (&b"new"[..], 900));
        // A live name, moved with the window.
        let (name, _) = t.get(1).unwrap();
        t.insert(Name::Table(name), &big[..1900]).unwrap();
        let names: [&[u8]; 3] = [b"new", b"old", b"new"];
        for (i, want) in names.iter().enumerate() {
            assert_eq!(t.bytes(t.get(i).unwrap().0), *want);
        }
    }
}
