//! Print a running server's counters in the Prometheus text format, as `--metrics` serves
//! them: a server on a free loopback port answers a 200, a route's 404 and a 400 (no Host),
//! then stops, and its summary is rendered on stdout. `.ci/deploy-check` feeds the output to
//! `promtool check metrics`.
//!
//! ```sh
//! cargo run --example metrics | promtool check metrics
//! ```

use canned::config::Config;
use canned::server::Server;
use std::io::{Read, Write};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let config = Config::default()
        .listen("127.0.0.1:0")?
        .route("/missing=404:no such thing")?;
    let server = Server::bind(config)?.spawn()?;
    let addr = server.tcp_addr().expect("a TCP listener");
    for request in [
        &b"GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"[..],
        b"GET /missing HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
        b"GET / HTTP/1.1\r\n\r\n",
    ] {
        let mut client = std::net::TcpStream::connect(addr)?;
        client.write_all(request)?;
        client.read_to_end(&mut Vec::new())?;
    }
    server.shutdown();
    let summary = server.join();
    let mut body = Vec::new();
    canned::stats::prometheus::render(&summary, 0, &mut body);
    std::io::stdout().write_all(&body)?;
    Ok(())
}
