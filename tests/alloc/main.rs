//! The allocation counters: each test proves that steady-state requests allocate nothing, with
//! the counting global allocator of `counting.rs` watching the whole process (the server's
//! workers and the test's client). A process of its own, with its own runner (`harness =
//! false` in Cargo.toml): the tests run one after another on the main thread, so that nothing
//! else allocates while one counts, neither another test nor a test harness starting the next
//! one on another thread; a request that allocates still fails its test.
//!
//! `cargo test --test alloc [FILTER]...` runs the tests whose name (`module::function`)
//! contains a filter, all without one; `--exact`, `--skip FILTER` and `--list` as for libtest;
//! its other flags are accepted and change nothing.

mod counting;
#[path = "../common/frames.rs"]
#[allow(dead_code)]
mod frames;
#[path = "../common/retry.rs"]
#[allow(dead_code)]
mod retry;

use std::io::Write;
use std::time::Instant;

/// The modules, each with the feature its server needs, and their tests.
macro_rules! tests {
    ($($(#[$cfg:meta])* $module:ident: $($test:ident),+;)*) => {
        $($(#[$cfg])* mod $module;)*
        const TESTS: &[&[(&str, fn())]] = &[$(
            $(#[$cfg])*
            &[$((concat!(stringify!($module), "::", stringify!($test)), $module::$test)),+],
        )*];
    };
}

tests! {
    #[cfg(feature = "admin")]
    admin_route_alloc: routes_given_at_run_time_allocate_nothing;
    #[cfg(feature = "control")]
    control_alloc: controlled_requests_allocate_nothing;
    #[cfg(feature = "stats")]
    counter_alloc: counter_route_requests_allocate_nothing;
    #[cfg(feature = "echo")]
    echo_alloc: echo_requests_allocate_nothing;
    #[cfg(all(feature = "faults", feature = "ranges"))]
    fault_alloc: steady_state_faulted_requests_allocate_nothing, paced_requests_allocate_nothing;
    #[cfg(feature = "http2")]
    grpc_alloc: grpc_health_checks_allocate_nothing;
    #[cfg(feature = "http2")]
    h2_alloc: steady_state_http2_requests_allocate_nothing;
    #[cfg(all(feature = "control", feature = "http2"))]
    h2_control_alloc: controlled_deliveries_allocate_nothing;
    #[cfg(all(feature = "http2", feature = "echo"))]
    h2_echo_alloc: steady_state_http2_echoes_allocate_nothing;
    #[cfg(all(feature = "faults", feature = "http2"))]
    h2_fault_alloc: faulted_streams_allocate_nothing;
    #[cfg(feature = "journal")]
    journal_alloc: journaled_requests_allocate_nothing;
    #[cfg(feature = "ranges")]
    range_alloc: range_and_conditional_requests_allocate_nothing;
    route_alloc: routes_with_their_own_fields_and_redirects_allocate_nothing;
    #[cfg(all(feature = "admin", feature = "faults"))]
    sequence_alloc: steady_state_sequence_steps_allocate_nothing;
    steady_state: steady_state_requests_allocate_nothing;
    #[cfg(feature = "websocket")]
    websocket_alloc: websocket_messages_allocate_nothing;
    #[cfg(feature = "websocket")]
    websocket_fault_alloc: websocket_faults_allocate_nothing_per_message;
}

fn main() {
    let (mut filters, mut skips) = (Vec::new(), Vec::new());
    let (mut exact, mut list, mut ignored_only) = (false, false, false);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--exact" => exact = true,
            "--list" => list = true,
            // None of these tests is ignored.
            "--ignored" => ignored_only = true,
            "--skip" => skips.extend(args.next()),
            // libtest's flags that take a value, given apart.
            "--test-threads" | "--color" | "--format" | "--logfile" | "-Z" => {
                args.next();
            }
            a if a.starts_with('-') => {}
            _ => filters.push(arg),
        }
    }
    let matches = |name: &str, f: &String| {
        if exact {
            name == f
        } else {
            name.contains(f.as_str())
        }
    };
    let all: Vec<_> = TESTS.iter().flat_map(|t| t.iter()).collect();
    let chosen: Vec<_> = all
        .iter()
        .filter(|(name, _)| {
            !ignored_only
                && (filters.is_empty() || filters.iter().any(|f| matches(name, f)))
                && !skips.iter().any(|f| matches(name, f))
        })
        .collect();
    if list {
        for (name, _) in &chosen {
            println!("{name}: test");
        }
        println!("\n{} tests, 0 benchmarks", chosen.len());
        return;
    }
    let started = Instant::now();
    println!("\nrunning {} tests", chosen.len());
    let mut failed = Vec::new();
    for (name, test) in &chosen {
        print!("test {name} ... ");
        std::io::stdout().flush().unwrap();
        let ok = std::panic::catch_unwind(test).is_ok();
        println!("{}", if ok { "ok" } else { "FAILED" });
        if !ok {
            failed.push(name);
        }
    }
    if !failed.is_empty() {
        println!("\nfailures:");
        for name in &failed {
            println!("    {name}");
        }
    }
    println!(
        "\ntest result: {}. {} passed; {} failed; 0 ignored; 0 measured; {} filtered out; finished in {:.2}s\n",
        if failed.is_empty() { "ok" } else { "FAILED" },
        chosen.len() - failed.len(),
        failed.len(),
        all.len() - chosen.len(),
        started.elapsed().as_secs_f64()
    );
    if !failed.is_empty() {
        std::process::exit(101);
    }
}
