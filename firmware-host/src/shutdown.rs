//! Waiting for the signals that stop the server.

/// Resolves on the first SIGINT (Ctrl-C) or SIGTERM (systemd's stop).
pub async fn signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => tracing::info!("SIGINT received; shutting down"),
                    _ = term.recv() => tracing::info!("SIGTERM received; shutting down"),
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for SIGTERM; only SIGINT stops the server");
                wait_ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    wait_ctrl_c().await;
}

async fn wait_ctrl_c() {
    if let Err(e) = tokio::signal::ctrl_c().await {
        tracing::error!(error = %e, "cannot listen for Ctrl-C");
        // Without a signal to wait for, never resolve: the process is stopped from outside.
        std::future::pending::<()>().await;
    }
    tracing::info!("SIGINT received; shutting down");
}
