//! The default `--workers`: the CPUs this process may run on (its affinity mask), fewer under a
//! cgroup v2 CPU quota.

use super::file::read_bounded;
use crate::values::split_at_byte;

/// The default `--workers`: the CPUs this process may run on (its affinity mask, as `taskset`
/// or a cpuset sets it), fewer when a cgroup v2 CPU quota allows less ([`cgroup_cpus`]). Read
/// here rather than through `std::thread::available_parallelism`, which does the same and
/// also reads cgroup v1 and the mount table: 12 KB of code, most of a path library.
pub(super) fn default_workers() -> usize {
    // SAFETY: a zeroed cpu_set_t is an empty set, and sched_getaffinity writes at most the
    // size it is given.
    let cpus = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) == 0 {
            (0..libc::CPU_SETSIZE as usize)
                .filter(|&c| libc::CPU_ISSET(c, &set))
                .count()
        } else {
            // More CPUs than the set holds (1024): every online one.
            libc::sysconf(libc::_SC_NPROCESSORS_ONLN).max(1) as usize
        }
    };
    cpus.min(cgroup_cpus().unwrap_or(usize::MAX)).max(1)
}

/// The CPUs that the cgroup v2 CPU quota of this process allows (`cpu.max`: QUOTA PERIOD,
/// rounded up), the lowest along its cgroup and the cgroups above it; `None` without a quota.
/// The cgroup is read from /proc/self/cgroup (`0::/PATH`), under the unified hierarchy at
/// /sys/fs/cgroup: in a container with its own cgroup namespace PATH is `/` and the file is the
/// container's limit.
pub(super) fn cgroup_cpus() -> Option<usize> {
    use std::os::unix::ffi::OsStrExt;
    const ROOT: &[u8] = b"/sys/fs/cgroup";
    let own = read_bounded("/proc/self/cgroup".as_ref(), 4096).ok()?;
    let own = own
        .split(|&b| b == b'\n')
        .find_map(|l| l.strip_prefix(b"0::/"))?;
    let mut dir = [ROOT, b"/", own].concat();
    let mut least: Option<usize> = None;
    loop {
        let file = [&dir[..], b"/cpu.max"].concat();
        let text = read_bounded(std::ffi::OsStr::from_bytes(&file), 64).unwrap_or_default();
        if let Some(cpus) = quota_cpus(&text) {
            least = Some(least.map_or(cpus, |l| l.min(cpus)));
        }
        match dir.iter().rposition(|&b| b == b'/') {
            Some(i) if i > ROOT.len() => dir.truncate(i),
            _ => return least,
        }
    }
}

/// The CPUs a `cpu.max` file allows: `150000 100000` (a quota of 150 ms per 100 ms) is 2;
/// `max 100000` (no quota) is `None`.
pub(super) fn quota_cpus(cpu_max: &[u8]) -> Option<usize> {
    let text = std::str::from_utf8(cpu_max).ok()?;
    let (quota, period) = split_at_byte(text.trim_end_matches('\n'), b' ');
    let (Ok(quota), Ok(period)) = (quota.parse::<u64>(), period.parse::<u64>()) else {
        return None;
    };
    (period > 0).then(|| quota.div_ceil(period).max(1) as usize)
}
