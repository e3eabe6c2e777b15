//! A worker's connection deadlines: at most one entry per connection in a binary min-heap that
//! knows where each connection's entry sits, so that setting, moving and cancelling an entry
//! cost O(log n), the earliest is read in O(1), and the heap never holds more entries than
//! there are connections (a closed connection's entry goes with it; nothing stale piles up
//! under connection churn).

/// `at[key]` when the key has no entry.
const NONE: u32 = u32::MAX;

/// Deadlines in worker microseconds, keyed by connection slot.
#[derive(Debug, Default)]
pub(super) struct Deadlines {
    /// (due, key), a min-heap on `due`.
    heap: Vec<(u64, u32)>,
    /// Where each key's entry is in `heap`, or [`NONE`].
    at: Vec<u32>,
}

impl Deadlines {
    /// The key's deadline, if it has one.
    #[cfg(test)]
    fn get(&self, key: usize) -> Option<u64> {
        match self.at.get(key) {
            Some(&i) if i != NONE => Some(self.heap[i as usize].0),
            _ => None,
        }
    }

    /// Give `key` the deadline `due`, replacing any it had.
    pub(super) fn set(&mut self, key: usize, due: u64) {
        if key >= self.at.len() {
            self.at.resize(key + 1, NONE);
        }
        match self.at[key] {
            NONE => {
                self.heap.push((due, key as u32));
                let i = self.heap.len() - 1;
                self.at[key] = i as u32;
                self.up(i);
            }
            i => {
                let i = i as usize;
                let old = self.heap[i].0;
                self.heap[i].0 = due;
                if due < old {
                    self.up(i);
                } else {
                    self.down(i);
                }
            }
        }
    }

    /// Drop `key`'s deadline, if it has one.
    pub(super) fn remove(&mut self, key: usize) {
        let Some(&i) = self.at.get(key) else {
            return;
        };
        if i == NONE {
            return;
        }
        let i = i as usize;
        self.at[key] = NONE;
        let last = self.heap.pop().expect("an entry is indexed");
        if i < self.heap.len() {
            self.heap[i] = last;
            self.at[last.1 as usize] = i as u32;
            self.down(i);
            self.up(i);
        }
    }

    /// The earliest deadline.
    pub(super) fn earliest(&self) -> Option<u64> {
        self.heap.first().map(|e| e.0)
    }

    /// Remove and return a key whose deadline has passed, earliest first: one before `now`,
    /// the worker's clock rounded up (a deadline equal to it may still be under way).
    pub(super) fn pop_due(&mut self, now: u64) -> Option<usize> {
        let &(due, key) = self.heap.first()?;
        if due >= now {
            return None;
        }
        self.remove(key as usize);
        Some(key as usize)
    }

    fn up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.heap[parent].0 <= self.heap[i].0 {
                break;
            }
            self.swap(i, parent);
            i = parent;
        }
    }

    fn down(&mut self, mut i: usize) {
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut min = i;
            if l < self.heap.len() && self.heap[l].0 < self.heap[min].0 {
                min = l;
            }
            if r < self.heap.len() && self.heap[r].0 < self.heap[min].0 {
                min = r;
            }
            if min == i {
                return;
            }
            self.swap(i, min);
            i = min;
        }
    }

    fn swap(&mut self, a: usize, b: usize) {
        self.heap.swap(a, b);
        self.at[self.heap[a].1 as usize] = a as u32;
        self.at[self.heap[b].1 as usize] = b as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random set, move, remove and pop against a plain map, checking the heap's order and
    /// index after every step.
    #[test]
    fn agrees_with_a_plain_map() {
        let mut d = Deadlines::default();
        let mut model: Vec<Option<u64>> = vec![None; 64];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for step in 0..20_000 {
            let key = (next() % 64) as usize;
            let due = next() % 1000;
            match next() % 4 {
                0 | 1 => {
                    d.set(key, due);
                    model[key] = Some(due);
                }
                2 => {
                    d.remove(key);
                    model[key] = None;
                }
                _ => {
                    let now = due;
                    let popped = d.pop_due(now);
                    let earliest = model.iter().flatten().min().copied();
                    match popped {
                        Some(k) => {
                            assert_eq!(model[k], earliest, "step {step}");
                            assert!(earliest.unwrap() < now);
                            model[k] = None;
                        }
                        None => assert!(earliest.is_none_or(|e| e >= now), "step {step}"),
                    }
                }
            }
            for (k, m) in model.iter().enumerate() {
                assert_eq!(d.get(k), *m, "step {step} key {k}");
            }
            assert_eq!(d.earliest(), model.iter().flatten().min().copied());
            assert_eq!(d.heap.len(), model.iter().flatten().count());
        }
    }
}
