//! `firmware-host`: the XO Kiosk server binary. See `firmware-host --help`.

use std::io::IsTerminal;

use anyhow::Context as _;
use clap::Parser;
use firmware_host::{Cli, Config, Server};
use tracing_subscriber::EnvFilter;

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let filter = EnvFilter::try_new(&cli.log)
        .with_context(|| format!("--log {:?} is not a log level or filter", cli.log))?;
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async {
        let server = Server::start(Config::from(&cli)).await?;
        firmware_host::shutdown::signal().await;
        server.shutdown().await;
        Ok(())
    })
}
