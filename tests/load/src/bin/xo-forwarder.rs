//! `xo-forwarder`: the baseline xo-load compares the server against. It pairs WebSocket
//! connections two per match (the two connections that ask for the same path) and forwards each
//! text or binary message to the partner; with `--answer` it also sends each message back to its
//! sender (the server's pattern: every request answered, the partner told); nothing else.
//!
//! ```text
//! xo-forwarder [--bind 127.0.0.1:0] [--port-file FILE] [--read-buffer-size BYTES] [--answer]
//! ```

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

/// Pairs WebSocket connections by path and forwards every message to the partner.
#[derive(Debug, Parser)]
#[command(name = "xo-forwarder")]
struct Cli {
    /// Address and port to listen on (port 0: any free port).
    #[arg(long, default_value = "127.0.0.1:0")]
    bind: SocketAddr,
    /// Write the bound port (digits and a newline) to this file once listening.
    #[arg(long)]
    port_file: Option<PathBuf>,
    /// Each connection's read buffer in bytes (default: tungstenite's 128 KiB, a plain
    /// forwarder's; tungstenite zero-fills it before every read, about a third of this
    /// forwarder's CPU under load. firmware-host reads into 1 KiB).
    #[arg(long, default_value_t = 128 * 1024)]
    read_buffer_size: usize,
    /// Also send each message back to its sender, as the server answers every request.
    #[arg(long)]
    answer: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("xo-forwarder: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async {
        let listener = match tokio::net::TcpListener::bind(cli.bind).await {
            Ok(listener) => listener,
            Err(e) => {
                eprintln!("xo-forwarder: cannot listen on {}: {e}", cli.bind);
                return ExitCode::FAILURE;
            }
        };
        let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
        eprintln!("xo-forwarder listening on ws://127.0.0.1:{port}");
        if let Some(file) = &cli.port_file
            && let Err(e) = std::fs::write(file, format!("{port}\n"))
        {
            eprintln!("xo-forwarder: {}: {e}", file.display());
            return ExitCode::FAILURE;
        }
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(term) => term,
                Err(e) => {
                    eprintln!("xo-forwarder: {e}");
                    return ExitCode::FAILURE;
                }
            };
        tokio::select! {
            () = xo_load::forward::serve(listener, cli.read_buffer_size, cli.answer) => ExitCode::SUCCESS,
            _ = term.recv() => ExitCode::SUCCESS,
            _ = tokio::signal::ctrl_c() => ExitCode::SUCCESS,
        }
    })
}
