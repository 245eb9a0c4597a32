//! The owner's health page (SPEC O2): what `/api/health` says, the recent warnings and errors
//! of the log (a bounded ring in memory, [`RECENT_ERRORS`] lines), and the update status.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::sync::Mutex;

use tracing::Level;
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::Context;

/// Warning and error lines kept for the health page, newest last.
pub const RECENT_ERRORS: usize = 100;

static RING: Mutex<VecDeque<String>> = Mutex::new(VecDeque::new());

/// The recent warning and error lines, oldest first.
pub fn recent_errors() -> Vec<String> {
    RING.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
        .cloned()
        .collect()
}

fn push(line: String) {
    let mut ring = RING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if ring.len() == RECENT_ERRORS {
        ring.pop_front();
    }
    ring.push_back(line);
}

/// A tracing layer keeping every `warn` and `error` event in the ring (installed by `main`).
#[derive(Debug, Clone, Copy, Default)]
pub struct ErrorRing;

#[derive(Default)]
struct Line {
    message: String,
    fields: String,
}

impl Visit for Line {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            // Writing to a String cannot fail.
            let _ignored = write!(self.message, "{value:?}");
        } else {
            let _ignored = write!(self.fields, " {}={value:?}", field.name());
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message.push_str(value);
        } else {
            // Writing to a String cannot fail.
            let _ignored = write!(self.fields, " {}={value}", field.name());
        }
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for ErrorRing {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        let meta = event.metadata();
        // Levels order by verbosity: everything above WARN is INFO, DEBUG or TRACE.
        if *meta.level() > Level::WARN {
            return;
        }
        let mut line = Line::default();
        event.record(&mut line);
        push(format!(
            "{} {} {}: {}{}",
            crate::clock::now_ms(),
            meta.level(),
            meta.target(),
            line.message,
            line.fields
        ));
    }
}

/// `GET /api/owner/health`'s body, shared with the UI.
pub use protocol::http::OwnerHealth;
