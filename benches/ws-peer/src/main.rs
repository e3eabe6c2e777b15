//! tokio-tungstenite echoing each text and binary message back whole: the Rust WebSocket server
//! a user would pick instead, for `benches/ws.sh`. One current-thread tokio runtime (one
//! thread for every connection, like the other peers' one process). Pings are answered by
//! tungstenite itself; no extension (tokio-tungstenite offers none). Never shipped.
//!
//! Usage: `ws-peer PORT` (listens on 127.0.0.1:PORT).

use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpListener;

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let port: u16 = std::env::args()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| {
            eprintln!("ws-peer: usage: ws-peer PORT");
            std::process::exit(2)
        });
    let listener = TcpListener::bind(("127.0.0.1", port)).await?;
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            let Ok(mut ws) = tokio_tungstenite::accept_async(stream).await else {
                return;
            };
            while let Some(Ok(m)) = ws.next().await {
                // send() writes and flushes: one in flight per connection, as the load has it.
                if (m.is_text() || m.is_binary()) && ws.send(m).await.is_err() {
                    return;
                }
            }
        });
    }
}
