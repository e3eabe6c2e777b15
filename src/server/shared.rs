//! What the workers share: the stop flags and their wake-up sockets, every worker's poller, the
//! connection count and its slots, the eviction asks at `--max-conns`, the accept failures
//! already reported, and the parts built once for all (the catalogue, the access log's queue,
//! the faults `--admin` changes).

use super::log::AccessLog;
use super::signals;
use crate::fault::FaultSet;
use crate::mutate::Catalogue;
use crate::response::Responses;
use crate::stats::Summary;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

pub(super) struct Shared {
    /// `--stats`: each worker's counters, published every tick.
    pub(super) published: Mutex<Vec<Summary>>,
    pub(super) stop: AtomicBool,
    /// `pollers[worker]`, so that a worker asking for an eviction can wake the others. Declared
    /// before the wake and stop-now sockets, which every poller holds registered: dropped
    /// first.
    pub(super) pollers: Vec<Arc<polling::Poller>>,
    pub(super) wake_r: UnixStream,
    pub(super) wake_w: UnixStream,
    /// Written by a second stop signal: every worker polls it and stops at once, draining or
    /// not. Never read (the workers leave on its first report).
    pub(super) force_r: UnixStream,
    pub(super) force_w: UnixStream,
    pub(super) open: AtomicUsize,
    /// At `--max-conns`: idle keep-alive connections that a worker with none of its own asks
    /// the others to close. Each ask is withdrawn at the asker's next look at the limit
    /// (100 ms), so one that nobody can satisfy costs nothing after that.
    evictions_wanted: AtomicUsize,
    /// `room_asked[worker]`: that worker's ask of `evictions_wanted` stands (one at a time,
    /// withdrawn at its next look at the limit). Whoever clears a flag adjusts the count.
    room_asked: Vec<AtomicBool>,
    /// Connections that have sent nothing yet, over all workers (see `Worker::silent`).
    pub(super) silent: AtomicUsize,
    /// Errnos of accept failures already reported ([`Shared::first_report`]), a bit each.
    reported: [AtomicU64; 4],
    /// `--mutate`: the catalogue's bytes, built once and shared by the workers.
    pub(super) catalogue: Option<Arc<Catalogue>>,
    /// `--access-log`: the lines on their way to stdout.
    pub(super) log: Option<AccessLog>,
    /// `--admin`: the faults the workers serve, replaced by the admin listener.
    pub(super) faults: Option<PublishedFaults>,
}

/// `--admin`: the faults every worker serves, and a count of the changes to them. A worker
/// loads the count once per loop turn (relaxed; nothing else on its path) and takes the new
/// tables, under the lock, only when it moved.
pub(super) struct PublishedFaults {
    /// Changes so far; written under `current`'s lock.
    pub(super) epoch: AtomicU64,
    pub(super) current: Mutex<Arc<FaultTables>>,
    /// By worker: the last change it took, and the responses a change retired that it still
    /// sends (kept until a later change finds them done), so that the admin frees an index
    /// only when no worker holds it.
    held: Mutex<Vec<(u64, Vec<u16>)>>,
}

/// One version of the faults: the set, and the responses it sends (the workers' own, with
/// those formatted for faults since start-up after them).
pub(super) struct FaultTables {
    pub(super) set: Arc<FaultSet>,
    pub(super) responses: Responses,
    /// `POST /reset`s so far: a worker that sees it move zeroes its `--stats` counters.
    pub(super) counter_resets: u64,
}

impl PublishedFaults {
    pub(super) fn new(tables: FaultTables, workers: usize) -> PublishedFaults {
        PublishedFaults {
            epoch: AtomicU64::new(0),
            current: Mutex::new(Arc::new(tables)),
            held: Mutex::new(vec![(0, Vec::new()); workers]),
        }
    }

    /// Worker `worker` took change `epoch`, and still sends the retired responses `kept`.
    pub(super) fn report(&self, worker: usize, epoch: u64, kept: Vec<u16>) {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(h) = held.get_mut(worker) {
            *h = (epoch, kept);
        }
    }

    /// Whether response `at`, retired by change `change`, is held by no worker: each has
    /// taken that change (so no new response sends it) and holds it in none of its own.
    pub(super) fn unused(&self, at: u16, change: u64) -> bool {
        let held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        held.iter()
            .all(|(epoch, kept)| *epoch >= change && !kept.contains(&at))
    }

    /// The changes so far (once per loop turn).
    #[inline(always)]
    pub(super) fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::Relaxed)
    }

    /// The tables now, and the change they are.
    pub(super) fn current(&self) -> (Arc<FaultTables>, u64) {
        let tables = self.current.lock().unwrap_or_else(|e| e.into_inner());
        (tables.clone(), self.epoch.load(Ordering::Relaxed))
    }

    /// Serve `tables` from now on: every worker takes them at its next loop turn.
    pub(super) fn publish(&self, tables: FaultTables, pollers: &[Arc<polling::Poller>]) {
        {
            let mut current = self.current.lock().unwrap_or_else(|e| e.into_inner());
            *current = Arc::new(tables);
            self.epoch.fetch_add(1, Ordering::Relaxed);
        }
        // An idle worker wakes for it, so that it has the tables before its next request.
        for p in pollers {
            let _ = p.notify();
        }
    }
}

impl Shared {
    /// `--access-log`'s lines on their way out: never in a build without the feature.
    #[inline(always)]
    pub(super) fn log(&self) -> Option<&AccessLog> {
        self.log.as_ref().filter(|_| cfg!(feature = "access-log"))
    }

    /// The state `workers` workers share: a poller each, the wake-up and stop-now sockets.
    pub(super) fn new(
        workers: usize,
        catalogue: Option<Arc<Catalogue>>,
        log: Option<AccessLog>,
        faults: Option<PublishedFaults>,
    ) -> io::Result<Shared> {
        let (wake_r, wake_w) = UnixStream::pair()?;
        wake_r.set_nonblocking(true)?;
        wake_w.set_nonblocking(true)?;
        let (force_r, force_w) = UnixStream::pair()?;
        force_w.set_nonblocking(true)?;
        let mut pollers = Vec::with_capacity(workers);
        for _ in 0..workers {
            pollers.push(Arc::new(polling::Poller::new()?));
        }
        Ok(Shared {
            // Only `--stats` and `--metrics` publish (`Publisher::any`).
            published: Mutex::new(if cfg!(feature = "stats") {
                vec![Summary::default(); workers]
            } else {
                Vec::new()
            }),
            stop: AtomicBool::new(false),
            pollers,
            wake_r,
            wake_w,
            force_r,
            force_w,
            open: AtomicUsize::new(0),
            evictions_wanted: AtomicUsize::new(0),
            room_asked: (0..workers).map(|_| AtomicBool::new(false)).collect(),
            reported: Default::default(),
            silent: AtomicUsize::new(0),
            catalogue,
            log,
            faults,
        })
    }

    /// Count one more open connection if that stays within `max`: taken before the accept,
    /// so that workers accepting at once never exceed the limit between them.
    pub(super) fn reserve_slot(&self, max: usize) -> bool {
        self.open
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .is_ok()
    }

    /// Give back a slot of [`Shared::reserve_slot`]: an accept that failed, or a close.
    pub(super) fn release_slot(&self) {
        self.open.fetch_sub(1, Ordering::AcqRel);
    }

    /// At the limit with nothing idle of its own: worker `id` asks the other workers to close
    /// one of theirs (the limit is per process), and wakes them to look. One ask per worker at
    /// a time.
    pub(super) fn ask_for_room(&self, id: usize) {
        if self.pollers.len() < 2 {
            return;
        }
        // Counted before the flag is raised: a worker that takes the ask (clears the flag)
        // and decrements never finds the count at zero.
        self.evictions_wanted.fetch_add(1, Ordering::AcqRel);
        if self.room_asked[id].swap(true, Ordering::AcqRel) {
            // Already asked: one ask at a time.
            self.evictions_wanted.fetch_sub(1, Ordering::AcqRel);
            return;
        }
        for (other, poller) in self.pollers.iter().enumerate() {
            if other != id {
                let _ = poller.notify();
            }
        }
    }

    /// Worker `id`'s ask is settled (met, or it resumes or drains): take it back if nobody met
    /// it, so that an ask nobody can meet does not stand. Only its own ask: one that another
    /// worker met is already taken.
    pub(super) fn withdraw_ask_for_room(&self, id: usize) {
        if self.room_asked[id].swap(false, Ordering::AcqRel) {
            self.evictions_wanted.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// Whether some worker asks for room (read once per loop turn).
    #[inline]
    pub(super) fn room_wanted(&self) -> bool {
        self.evictions_wanted.load(Ordering::Relaxed) != 0
    }

    /// Whether worker `id`'s own ask stands.
    pub(super) fn asks_for_room(&self, id: usize) -> bool {
        self.room_asked[id].load(Ordering::Acquire)
    }

    /// Take another worker's ask (clear its flag) for worker `id` to meet: true when one was
    /// taken, and then `id` closes one connection for it. Taken before the close, so that two
    /// workers never close two connections for one ask.
    pub(super) fn take_ask_for_room(&self, id: usize) -> bool {
        let asked = &self.room_asked;
        let taken = (0..asked.len()).any(|other| {
            other != id
                && asked[other]
                    .compare_exchange(true, false, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok()
        });
        if taken {
            self.evictions_wanted.fetch_sub(1, Ordering::AcqRel);
        }
        taken
    }

    /// Whether this is the first report of `errno` in this process (errno 0: any other
    /// failure): each kind of accept failure is logged once, however many workers meet it.
    pub(super) fn first_report(&self, errno: i32) -> bool {
        let bit = errno.rem_euclid(256) as usize;
        let mask = 1u64 << (bit % 64);
        self.reported[bit / 64].fetch_or(mask, Ordering::Relaxed) & mask == 0
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        // Before `wake_w` closes: a signal arriving later must not write to a closed (or
        // reused) fd.
        signals::uninstall(self.wake_w.as_raw_fd());
    }
}

/// Ask every worker to drain and stop.
pub(super) fn wake(shared: &Shared) {
    shared.stop.store(true, Ordering::SeqCst);
    let _ = io::Write::write(&mut &shared.wake_w, b"w");
}
