//! hyper 1.x over HTTP/2 with prior knowledge (cleartext), answering `Hello World\n` with
//! Content-Type: text/plain, the same response canned sends by default: the peer of
//! `benches/h2.sh`. One current-thread tokio runtime (one worker, like the other peers). Never
//! shipped; built with `--features http2`.
//!
//! Usage: `hyper-peer-h2 PORT` (listens on 127.0.0.1:PORT).

use std::convert::Infallible;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::server::conn::http2;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::{TokioExecutor, TokioIo};
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
            eprintln!("hyper-peer-h2: usage: hyper-peer-h2 PORT");
            std::process::exit(2)
        });
    let listener = TcpListener::bind(("127.0.0.1", port)).await?;
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            // canned advertises 100 concurrent streams; hyper's default is 200 (h2load -m 100
            // stays under both).
            let _ = http2::Builder::new(TokioExecutor::new())
                .max_concurrent_streams(100)
                .serve_connection(TokioIo::new(stream), service_fn(hello))
                .await;
        });
    }
}
