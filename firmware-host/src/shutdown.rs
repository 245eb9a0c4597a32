//! Waiting for the signals that stop the server.

/// The stop signals, listened for from the moment this is made.
///
/// Make it before the server starts serving: a SIGTERM that arrives between the first
/// answered request and the first wait must stop the server cleanly, not kill it with the
/// default action (CI saw exactly that under load).
#[derive(Debug)]
pub struct Signals {
    #[cfg(unix)]
    term: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    int: Option<tokio::signal::unix::Signal>,
}

impl Signals {
    /// Installs the handlers for SIGINT (Ctrl-C) and SIGTERM (systemd's stop) now.
    /// Needs a Tokio runtime.
    #[must_use]
    pub fn listen() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let install = |kind: SignalKind, name: &str| match signal(kind) {
                Ok(s) => Some(s),
                Err(e) => {
                    tracing::warn!(error = %e, "cannot listen for {name}");
                    None
                }
            };
            Self {
                term: install(SignalKind::terminate(), "SIGTERM"),
                int: install(SignalKind::interrupt(), "SIGINT"),
            }
        }
        #[cfg(not(unix))]
        Self {}
    }

    /// Resolves on the first SIGINT or SIGTERM received since [`Signals::listen`].
    pub async fn recv(&mut self) {
        #[cfg(unix)]
        {
            async fn next(s: &mut Option<tokio::signal::unix::Signal>) {
                match s {
                    Some(s) => {
                        s.recv().await;
                    }
                    // Without a handler, never resolve: the process is stopped from outside.
                    None => std::future::pending().await,
                }
            }
            tokio::select! {
                () = next(&mut self.int) => tracing::info!("SIGINT received; shutting down"),
                () = next(&mut self.term) => tracing::info!("SIGTERM received; shutting down"),
            }
        }
        #[cfg(not(unix))]
        {
            if let Err(e) = tokio::signal::ctrl_c().await {
                tracing::error!(error = %e, "cannot listen for Ctrl-C");
                std::future::pending::<()>().await;
            }
            tracing::info!("SIGINT received; shutting down");
        }
    }
}
