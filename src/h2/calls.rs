//! The calls of the loop: [`Http2Conn`]'s side of [`Connection`], its timers and its ends.

use super::fields::RequestFields;
use super::{
    Env, HEADER_TABLE_SIZE, Http2Conn, MAX_CONCURRENT_STREAMS, MAX_FRAME_SIZE,
    MAX_HEADER_LIST_SIZE, NO_HEAD, OUT_HIGH, Phase, SETTINGS, State, closed, conform, flood, shape,
};
use crate::conn::{Connection, LINGER_BYTES, LINGER_US, Next, Pool, Pooled, Settings};
use crate::frame::{DEFAULT_WINDOW, ErrorCode, HEADER_LEN};
use crate::hpack::Decoder;
use crate::stats::Timeout;

/// The calls of the loop ([`Connection`]).
impl Http2Conn {
    /// [`Connection::new`].
    pub fn new(now_us: u64) -> Http2Conn {
        let mut out = Vec::with_capacity(OUT_HIGH / 4);
        out.extend_from_slice(&SETTINGS);
        Http2Conn {
            st: Box::new(State {
                phase: Phase::Preface,
                preface_at: 0,
                peer_settings: false,
                input: Vec::new(),
                out,
                out_pos: 0,
                decoder: Decoder::new(HEADER_TABLE_SIZE as usize)
                    .max_header_list_size(MAX_HEADER_LIST_SIZE as usize),
                scratch: vec![0; MAX_HEADER_LIST_SIZE as usize],
                block: Vec::new(),
                block_stream: 0,
                block_end_stream: false,
                block_depends_on_itself: false,
                fields: RequestFields::default(),
                head: Vec::new(),
                encoded: Vec::new(),
                streams: Vec::with_capacity(MAX_CONCURRENT_STREAMS as usize),
                last_stream: 0,
                skipped: conform::Skipped::default(),
                reset_by_us: closed::ResetByUs::default(),
                peer_initial_window: DEFAULT_WINDOW,
                peer_max_frame: crate::frame::MIN_MAX_FRAME_SIZE,
                window: DEFAULT_WINDOW as i64,
                recv_window: DEFAULT_WINDOW as i64,
                goaway_sent: false,
                eof: false,
                active_us: now_us,
                head_since_us: now_us,
                out_since_us: now_us,
                served: 0,
                opened: 0,
                linger_left: 0,
                held_log: Vec::new(),
                flood: flood::Flood::new(now_us),
                faults: shape::ConnFaults::default(),
                #[cfg(feature = "echo")]
                echo: super::kept::Kept::default(),
            }),
        }
    }

    /// [`Connection::on_data`].
    pub fn on_data<W>(&mut self, data: &[u8], env: &mut Env<'_, W>) {
        let s = &mut *self.st;
        env.stats.bytes_in += data.len() as u64;
        s.active_us = env.now_us;
        match s.phase {
            Phase::Lingering => {
                s.linger_left = s.linger_left.saturating_sub(data.len());
                return;
            }
            Phase::Closing => return,
            _ => {}
        }
        if s.phase == Phase::Preface && s.preface_at == 0 {
            s.advertise(env);
        }
        if s.input.is_empty() {
            let used = s.process(data, env);
            s.input.extend_from_slice(&data[used..]);
        } else {
            s.input.extend_from_slice(data);
            s.resume(env);
        }
        s.after(env);
    }

    /// [`Connection::on_eof`].
    pub fn on_eof(&mut self) {
        self.st.eof = true;
    }

    /// [`Connection::output`].
    pub fn output(&self) -> &[u8] {
        &self.st.out[self.st.out_pos..]
    }

    /// [`Connection::wrote`].
    pub fn wrote<W>(&mut self, n: usize, env: &mut Env<'_, W>) {
        let s = &mut *self.st;
        env.stats.bytes_out += n as u64;
        if n > 0 {
            s.active_us = env.now_us;
            s.out_since_us = env.now_us;
            s.flood.wrote();
        }
        s.out_pos += n;
        if s.out_pos == s.out.len() {
            s.out.clear();
            s.out_pos = 0;
        } else if s.out_pos >= OUT_HIGH / 2 {
            s.out.drain(..s.out_pos);
            s.out_pos = 0;
        }
        s.wrote_shaped(env.now_us);
        if matches!(s.phase, Phase::Open | Phase::Preface) {
            if !s.input.is_empty() && s.pending_out() < OUT_HIGH {
                s.resume(env);
            }
            s.after(env);
        }
    }

    /// [`Connection::wants_read`].
    pub fn wants_read(&self) -> bool {
        let s = &*self.st;
        match s.phase {
            Phase::Preface | Phase::Open => {
                !s.eof
                    && s.pending_out() < OUT_HIGH
                    && s.input.len() <= HEADER_LEN + MAX_FRAME_SIZE as usize
            }
            Phase::Lingering => !s.eof && s.linger_left > 0,
            Phase::Closing => false,
        }
    }

    /// [`Connection::next`].
    pub fn next(&self) -> Next {
        let s = &*self.st;
        let flushed = s.pending_out() == 0;
        match s.phase {
            Phase::Closing if flushed && s.faults.reset => Next::Reset,
            Phase::Closing if flushed => Next::Close { linger: true },
            Phase::Lingering if s.eof || s.linger_left == 0 => Next::Close { linger: false },
            Phase::Open | Phase::Preface if flushed && s.eof => Next::Close { linger: false },
            _ => Next::Continue,
        }
    }

    /// [`Connection::wake_at`].
    pub fn wake_at(&self, settings: &Settings) -> Option<u64> {
        let s = &*self.st;
        let t = &settings.timeouts;
        // A held stream's deadline or a fault's close (`faults`); while one holds, no idle
        // timeout.
        let timed = match s.phase {
            Phase::Open => s.faults.wake_at().min(s.kept_due()),
            _ => u64::MAX,
        };
        let head = s.head_since_us.saturating_add(t.header_us);
        Some(
            match s.phase {
                Phase::Lingering => s.active_us + LINGER_US,
                Phase::Preface => head,
                _ if s.pending_out() > 0 => s.out_since_us.saturating_add(t.write_us).min(timed),
                _ if s.faults.holds() || s.kept_due() != u64::MAX => {
                    timed.min(flood::body_deadline(s.waiting(), t.idle_us))
                }
                _ => s
                    .active_us
                    .saturating_add(t.idle_us)
                    .min(flood::body_deadline(s.waiting(), t.idle_us)),
            }
            .min(if s.phase == Phase::Open {
                head
            } else {
                u64::MAX
            }),
        )
    }

    /// [`Connection::on_wake`].
    pub fn on_wake<W>(&mut self, env: &mut Env<'_, W>) -> Next {
        let s = &mut *self.st;
        let now = env.now_us;
        let t = env.settings.timeouts;
        if let Some(n) = s.close_due(now) {
            return n;
        }
        match s.phase {
            Phase::Lingering if now > s.active_us + LINGER_US => Next::Close { linger: false },
            Phase::Preface if now > s.head_since_us.saturating_add(t.header_us) => {
                env.stats.timeouts[Timeout::Header as usize] += 1;
                Next::Close { linger: false }
            }
            Phase::Open if now > s.head_since_us.saturating_add(t.header_us) => {
                // A header block not whole in time: its request cannot be answered, and the
                // frames after it cannot be read. Say which streams were, then close.
                env.stats.timeouts[Timeout::Header as usize] += 1;
                s.head_since_us = NO_HEAD;
                s.goaway(ErrorCode::NoError);
                s.phase = Phase::Closing;
                Next::Continue
            }
            Phase::Open | Phase::Closing
                if s.pending_out() > 0 && now > s.out_since_us.saturating_add(t.write_us) =>
            {
                env.stats.timeouts[Timeout::Write as usize] += 1;
                Next::Close { linger: false }
            }
            Phase::Open
                if s.pending_out() == 0
                    && !s.faults.holds()
                    && s.kept_due() == u64::MAX
                    && now > s.active_us.saturating_add(t.idle_us) =>
            {
                env.stats.timeouts[Timeout::Idle as usize] += 1;
                // Say so before closing (§6.8): no stream is lost that the client may retry.
                s.goaway(ErrorCode::NoError);
                s.phase = Phase::Closing;
                Next::Continue
            }
            _ => {
                s.expire_bodies(env);
                s.after(env);
                Next::Continue
            }
        }
    }

    /// [`Connection::start_lingering`].
    pub fn start_lingering<W>(&mut self, now_us: u64, _: &mut Pool<W>) {
        let s = &mut *self.st;
        s.phase = Phase::Lingering;
        s.linger_left = LINGER_BYTES;
        s.active_us = now_us;
        s.input = Vec::new();
    }

    /// [`Connection::release`].
    pub fn release<W>(&mut self, _: &mut Pool<W>) {}

    /// [`Connection::is_lingering`].
    pub fn is_lingering(&self) -> bool {
        self.st.phase == Phase::Lingering
    }

    /// [`Connection::is_idle`].
    pub fn is_idle(&self) -> bool {
        let s = &*self.st;
        matches!(s.phase, Phase::Open)
            && s.streams.is_empty()
            && s.block_stream == 0
            && s.pending_out() == 0
            && s.input.is_empty()
    }

    /// [`Connection::farewell`].
    pub fn farewell(&mut self) -> &[u8] {
        let s = &mut *self.st;
        if s.phase == Phase::Open && !s.goaway_sent {
            s.goaway(ErrorCode::NoError);
        }
        &s.out[s.out_pos..]
    }

    /// [`Connection::is_held`].
    pub fn is_held(&self) -> bool {
        false
    }

    /// [`Connection::is_silent`].
    pub fn is_silent(&self) -> bool {
        false
    }

    /// [`Connection::last_active_us`].
    pub fn last_active_us(&self) -> u64 {
        self.st.active_us
    }

    /// [`Connection::served`].
    pub fn served(&self) -> u32 {
        self.st.served
    }

    /// [`Connection::responses_held`].
    pub fn responses_held(&self, held: &mut dyn FnMut(usize)) {
        for s in &self.st.streams {
            held(usize::from(s.route));
        }
    }
}

/// HTTP/2 borrows nothing from the worker's pool: it takes the loop's environment as it is,
/// whatever the pool lends. The calls are [`Http2Conn`]'s own, which name no pool.
impl<W: Pooled> Connection<W> for Http2Conn {
    #[inline(always)]
    fn new(now_us: u64) -> Http2Conn {
        Http2Conn::new(now_us)
    }

    #[inline(always)]
    fn on_data(&mut self, data: &[u8], env: &mut Env<'_, W>) {
        Http2Conn::on_data(self, data, env)
    }

    #[inline(always)]
    fn on_eof(&mut self) {
        Http2Conn::on_eof(self)
    }

    #[inline(always)]
    fn output(&self) -> &[u8] {
        Http2Conn::output(self)
    }

    #[inline(always)]
    fn wrote(&mut self, n: usize, env: &mut Env<'_, W>) {
        Http2Conn::wrote(self, n, env)
    }

    #[inline(always)]
    fn wants_read(&self) -> bool {
        Http2Conn::wants_read(self)
    }

    #[inline(always)]
    fn next(&self) -> Next {
        Http2Conn::next(self)
    }

    #[inline(always)]
    fn wake_at(&self, settings: &Settings) -> Option<u64> {
        Http2Conn::wake_at(self, settings)
    }

    #[inline(always)]
    fn on_wake(&mut self, env: &mut Env<'_, W>) -> Next {
        Http2Conn::on_wake(self, env)
    }

    #[inline(always)]
    fn start_lingering(&mut self, now_us: u64, pool: &mut Pool<W>) {
        Http2Conn::start_lingering(self, now_us, pool)
    }

    #[inline(always)]
    fn release(&mut self, pool: &mut Pool<W>) {
        Http2Conn::release(self, pool)
    }

    #[inline(always)]
    fn is_lingering(&self) -> bool {
        Http2Conn::is_lingering(self)
    }

    #[inline(always)]
    fn is_idle(&self) -> bool {
        Http2Conn::is_idle(self)
    }

    #[inline(always)]
    fn farewell(&mut self) -> &[u8] {
        Http2Conn::farewell(self)
    }

    #[inline(always)]
    fn is_held(&self) -> bool {
        Http2Conn::is_held(self)
    }

    #[inline(always)]
    fn is_silent(&self) -> bool {
        Http2Conn::is_silent(self)
    }

    #[inline(always)]
    fn last_active_us(&self) -> u64 {
        Http2Conn::last_active_us(self)
    }

    #[inline(always)]
    fn served(&self) -> u32 {
        Http2Conn::served(self)
    }

    #[inline(always)]
    fn responses_held(&self, held: &mut dyn FnMut(usize)) {
        Http2Conn::responses_held(self, held)
    }
}
