//! hyper 1.x answering `Hello World\n` with Content-Type: text/plain, the same response canned
//! sends by default: the Rust server a user would pick instead, for `benches/load.sh`. One
//! current-thread tokio runtime (one worker, like the other peers). Never shipped.
//!
//! Usage: `hyper-peer PORT` (listens on 127.0.0.1:PORT).

use std::convert::Infallible;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

const BODY: &[u8] = b"Hello World\n";

async fn hello(_: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let mut response = Response::new(Full::new(Bytes::from_static(BODY)));
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    Ok(response)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let port: u16 = std::env::args()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| {
            eprintln!("hyper-peer: usage: hyper-peer PORT");
            std::process::exit(2)
        });
    let listener = TcpListener::bind(("127.0.0.1", port)).await?;
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            // pipeline_flush: one write for a batch of pipelined responses, as canned does.
            let _ = http1::Builder::new()
                .pipeline_flush(true)
                .serve_connection(TokioIo::new(stream), service_fn(hello))
                .await;
        });
    }
}
