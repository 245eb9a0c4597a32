//! [`Store`], the handle every caller holds: it hands writes to the writer thread and runs
//! reads on the calling thread. The nouns add their own methods to it (`impl Store` in each
//! noun's module), built on [`Store::write`] and [`Store::read`].

use std::path::Path;
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use redb::ReadTransaction;
use rooms::StoreError;
use tokio::sync::oneshot;

use super::health::StorageHealth;
use super::op::{Op, Outcome, Request};
use super::shared::Core;

#[derive(Debug)]
struct Inner {
    core: Arc<Core>,
    sender: Mutex<Option<Sender<Request>>>,
    writer: Mutex<Option<JoinHandle<()>>>,
}

/// The store: a cheap cloneable handle on the database and its writer thread.
#[derive(Debug, Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

impl Store {
    /// A handle on `core`, whose writer thread `writer` takes what `sender` sends.
    pub(super) fn new(core: Arc<Core>, sender: Sender<Request>, writer: JoinHandle<()>) -> Store {
        Store {
            inner: Arc::new(Inner {
                core,
                sender: Mutex::new(Some(sender)),
                writer: Mutex::new(Some(writer)),
            }),
        }
    }

    pub(super) fn core(&self) -> &Core {
        &self.inner.core
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.inner.core.path
    }

    /// The data directory the database file is in.
    pub(super) fn data_dir(&self) -> &Path {
        &self.inner.core.data_dir
    }

    /// The state of the card now: working, failing (with the reason), or nearly full.
    pub fn health(&self) -> StorageHealth {
        self.inner.core.check_space()
    }

    /// Commits every write sent before this call durably, then stops the writer. Later writes
    /// fail with [`StoreError::Stopped`]; reads still work. Idempotent.
    pub fn shutdown_blocking(&self) {
        let sender = self
            .inner
            .sender
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(sender) = sender {
            let (done, wait) = oneshot::channel();
            if sender.send(Request::Shutdown(done)).is_ok() {
                // An error means the writer already exited; nothing is left to wait for.
                let _ignored = wait.blocking_recv();
            }
        }
        let writer = self
            .inner
            .writer
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(writer) = writer
            && writer.join().is_err()
        {
            tracing::error!("the store writer thread panicked");
        }
    }

    /// Hands `op` to the writer; the receiver gets the outcome after its commit.
    fn submit(&self, op: Op) -> Result<oneshot::Receiver<Result<Outcome, StoreError>>, StoreError> {
        let (reply, answer) = oneshot::channel();
        let sender = self
            .inner
            .sender
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let sender = sender.as_ref().ok_or(StoreError::Stopped)?;
        sender
            .send(Request::Write(op, reply))
            .map_err(|_| StoreError::Stopped)?;
        Ok(answer)
    }

    /// A write, awaited without holding a thread.
    pub(super) fn write(
        &self,
        op: Op,
    ) -> impl Future<Output = Result<Outcome, StoreError>> + Send + 'static {
        let answer = self.submit(op);
        async move {
            match answer?.await {
                Ok(result) => result,
                // The writer dropped the request: it stopped.
                Err(_) => Err(StoreError::Stopped),
            }
        }
    }

    /// Runs `f` in a read transaction on the calling thread (blocking, briefly).
    pub(super) fn read<T>(
        &self,
        f: impl FnOnce(&ReadTransaction) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.inner.core.read(f)
    }
}
