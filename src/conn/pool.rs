//! A worker's free list of work areas ([`Pool`]), what it asks of one ([`Pooled`]), and the
//! call that gives freed memory back to the system after a burst.

use super::settings::Settings;

/// What a connection holds only while it has work (its parser's place, its buffers), as a
/// [`Pool`] lends it: each protocol has its own, the pool's policy is the same for all.
pub trait Pooled {
    /// A new one, for a connection under `settings`.
    fn new(settings: &Settings) -> Self;
    /// One kept by the pool is lent again: set up what [`Pooled::new`] would, keeping the
    /// buffers' capacity.
    fn renew(&mut self, settings: &Settings);
    /// Back from a connection: forget its contents, keep the buffers' capacity.
    fn reset(&mut self);
    /// Give the buffers' capacity back to the allocator.
    fn shed(&mut self);
    /// Bytes of buffer capacity held.
    fn capacity(&self) -> usize;
}

/// A per-worker free list of connection work areas (parser state and buffers), so that
/// steady-state traffic allocates nothing and an idle connection holds none.
#[derive(Debug)]
pub struct Pool<W> {
    // Boxed: a work area moves between the pool and a connection as a pointer, and an idle
    // connection holds only `Option<Box<W>>` (8 bytes).
    #[allow(clippy::vec_box)]
    free: Vec<Box<W>>,
    /// Buffer capacity of the work areas in `free`.
    held: usize,
    /// Buffer bytes freed since the allocator was last asked to return free memory.
    freed: usize,
}

impl<W> Default for Pool<W> {
    fn default() -> Self {
        Pool {
            free: Vec::new(),
            held: 0,
            freed: 0,
        }
    }
}

/// The pool's bounds, the same whatever it holds: declared for one type so that
/// `Pool::KEEP_BYTES` reads without naming a protocol's work area.
impl Pool<()> {
    /// Work areas kept for reuse.
    const KEEP: usize = 64;
    /// Buffer bytes kept for reuse, over all kept work areas. A burst of slow-reading
    /// pipelining clients fills every connection's output to the high-water mark; keeping
    /// those buffers would keep that burst's memory for good. This is enough for steady
    /// keep-alive traffic (a few KiB per connection) and for one large body in flight.
    pub const KEEP_BYTES: usize = 256 * 1024;
    /// Once this many buffer bytes were freed, [`Pool::trim_due`]: the worker asks the
    /// allocator to return its free memory to the system at its next quiet moment.
    const TRIM_AFTER: usize = 1024 * 1024;
}

impl<W: Pooled> Pool<W> {
    /// Lend a work area. Always inlined: the plain path takes one for every request of a
    /// keep-alive connection, and its other, cold callers would otherwise keep it out of line.
    #[inline(always)]
    pub fn take(&mut self, settings: &Settings) -> Box<W> {
        match self.free.pop() {
            Some(mut b) => {
                self.held -= b.capacity();
                b.renew(settings);
                b
            }
            None => Box::new(W::new(settings)),
        }
    }

    /// Take a work area back: keep it (emptied) while the pool is within [`Pool::KEEP_BYTES`].
    /// What it gives back is counted for [`Pool::trim_due`]; trimming is the worker's, on a
    /// timer: here it would run whenever no connection holds a work area, which steady
    /// traffic of large bodies reaches between two requests (a heap walk and fresh pages for
    /// the next request's buffers, every time).
    pub fn put(&mut self, mut b: Box<W>) {
        if self.free.len() >= Pool::KEEP || self.held + b.capacity() > Pool::KEEP_BYTES {
            self.freed += b.capacity();
            b.shed();
        }
        if self.free.len() < Pool::KEEP {
            b.reset();
            self.held += b.capacity();
            self.free.push(b);
        }
    }

    /// Enough buffer memory was given back since the last [`Pool::trim`] to be worth returning
    /// to the system.
    #[inline(always)]
    pub fn trim_due(&self) -> bool {
        self.freed >= Pool::TRIM_AFTER
    }

    /// Return free memory to the system if it is due. Whatever connections still hold is
    /// theirs (the allocator returns only free memory): called at most once a second, it need
    /// not wait for a moment when none holds a work area, which a held or slow connection may
    /// never give.
    pub fn trim(&mut self) {
        if self.trim_due() {
            self.freed = 0;
            return_free_memory();
        }
    }

    /// Buffer bytes held by the kept work areas (at most [`Pool::KEEP_BYTES`]).
    pub fn held_bytes(&self) -> usize {
        self.held
    }

    /// Work areas held for reuse.
    pub fn len(&self) -> usize {
        self.free.len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.free.is_empty()
    }
}

/// Ask the C allocator to return the free memory it holds to the system, after a burst. glibc
/// keeps freed blocks in its heaps (it raises its trim threshold as large blocks are freed, and
/// it never trims the middle of a heap by itself), so a burst of slow-reading pipelining
/// clients would leave its memory above idle for good, even with the pool's bound on what it
/// keeps (`benches/burst_rss.py` measures it). It walks the heaps once, and runs only when no
/// connection holds a work area. musl's allocator unmaps large freed blocks by itself.
pub(crate) fn return_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory of glibc's heaps; no preconditions.
    unsafe {
        libc::malloc_trim(0);
    }
}
