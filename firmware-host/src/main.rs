//! `firmware-host`: the XO Kiosk server binary. See `firmware-host --help`.

use std::io::IsTerminal;

use anyhow::Context as _;
use clap::Parser;
use firmware_host::{Cli, Config, Server};
use tracing_subscriber::EnvFilter;

/// glibc raises its mmap threshold after the first large block is freed, so every later
/// argon2 block (19 MiB per sign-in, `accounts::ARGON2_M_KIB`) comes from the heap and stays
/// resident after use: measured on x86-64, resident memory went from 15 MiB to 226 MiB over
/// 15 sign-ins. A fixed threshold keeps such blocks in their own mappings, returned when freed.
/// It can only be set before the process starts (without unsafe code), so the server starts
/// itself once more with it; musl (the Pi builds) ignores it.
const MALLOC_MMAP_THRESHOLD: (&str, &str) = ("MALLOC_MMAP_THRESHOLD_", "1048576");

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn fix_malloc_threshold() {
    use std::os::unix::process::CommandExt as _;
    let (name, value) = MALLOC_MMAP_THRESHOLD;
    if std::env::var_os(name).is_some() {
        return;
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    // `exec` only returns on failure; the server then runs with the default threshold.
    let error = std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env(name, value)
        .exec();
    eprintln!("firmware-host: cannot restart with {name}={value}: {error}");
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn fix_malloc_threshold() {
    let _ = MALLOC_MMAP_THRESHOLD;
}

/// `firmware-host owner-code --data-dir DIR`: prints a one-time owner code on its last line
/// (SPEC O1). It writes the code file the server reads (`firmware_host::owner`), so it works
/// whether the server runs on that data directory or not.
#[derive(Debug, clap::Parser)]
#[command(name = "firmware-host owner-code")]
struct OwnerCodeCli {
    /// The server's data directory.
    #[arg(
        long,
        env = "XO_DATA_DIR",
        default_value = "./data",
        value_name = "DIR"
    )]
    data_dir: std::path::PathBuf,
}

fn owner_code(args: impl Iterator<Item = std::ffi::OsString>) -> anyhow::Result<()> {
    let cli = OwnerCodeCli::parse_from(args);
    let code = firmware_host::owner::write_code_file(&cli.data_dir, firmware_host::clock::now_ms())
        .with_context(|| format!("cannot write the owner code in {}", cli.data_dir.display()))?;
    let minutes = firmware_host::owner::CODE_LIFE.as_secs() / 60;
    println!(
        "Sign in on a phone, open Owner and enter this code within {minutes} minutes (it works once):"
    );
    println!("{} {}", &code[..4], &code[4..]);
    Ok(())
}

fn main() -> anyhow::Result<std::process::ExitCode> {
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == "owner-code")
    {
        owner_code(std::env::args_os().skip(1))?;
        return Ok(std::process::ExitCode::SUCCESS);
    }
    fix_malloc_threshold();
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == "install-update")
    {
        return Ok(firmware_host::update::cli_main(std::env::args_os().skip(1)));
    }
    let cli = Cli::parse();
    let filter = EnvFilter::try_new(&cli.log)
        .with_context(|| format!("--log {:?} is not a log level or filter", cli.log))?;
    {
        use tracing_subscriber::layer::SubscriberExt as _;
        use tracing_subscriber::util::SubscriberInitExt as _;
        tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .with_ansi(std::io::stderr().is_terminal())
            .finish()
            // Warnings and errors also go to the owner's health page.
            .with(firmware_host::owner_health::ErrorRing)
            .init();
    }

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async {
        // Before the server answers anything: a stop signal from then on is a clean stop.
        let mut signals = firmware_host::shutdown::Signals::listen();
        let server = Server::start(Config::from(&cli)).await?;
        let status = tokio::select! {
            () = signals.recv() => std::process::ExitCode::SUCCESS,
            () = server.restart_requested() => {
                tracing::info!(supervisor = ?cli.supervisor, "restarting at an owner's request");
                // "Start me again": scripts/run and the image's launcher know this status.
                std::process::ExitCode::from(protocol::http::RESTART_EXIT_STATUS)
            }
        };
        server.shutdown().await;
        Ok(status)
    })
}
