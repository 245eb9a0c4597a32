//! A failing card is survived, reported and healed, on the real store and the real
//! redb file: a `StorageBackend` wrapper (redb's own trait, as redb's crash tests do) fails
//! reads, writes, `set_len` or `sync_data` on command. Every failure leaves the file
//! consistent, nothing committed is lost, `health()` says why while it fails, and the store
//! heals by itself (reopening the database) when the fault goes away.

use std::fs::OpenOptions;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use engine::{Mark, Score};
use firmware_host::store::{
    DB_FILE, JOURNAL_FILE, SettingsRecord, StorageState, Store, StoredLanguage, StoredWifi,
};
use protocol::records::{FinishedGame, PlayerRef, UserId};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use redb::StorageBackend;
use redb::backends::FileBackend;
use rooms::StoreError;

use crate::support::store::{BlockingWrites, DAY_MS, now, rated};

const HASH: &str = "$argon2id$not-a-real-hash";

/// Which operations fail, and how many failures were injected.
#[derive(Debug, Default)]
struct Faults {
    read: AtomicBool,
    write: AtomicBool,
    set_len: AtomicBool,
    sync_data: AtomicBool,
    injected: AtomicU64,
    /// Syncs that reached the file.
    syncs: AtomicU64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Read,
    Write,
    SetLen,
    SyncData,
}

const KINDS: [Kind; 4] = [Kind::Read, Kind::Write, Kind::SetLen, Kind::SyncData];

impl Faults {
    fn flag(&self, kind: Kind) -> &AtomicBool {
        match kind {
            Kind::Read => &self.read,
            Kind::Write => &self.write,
            Kind::SetLen => &self.set_len,
            Kind::SyncData => &self.sync_data,
        }
    }

    fn set(&self, kind: Kind, on: bool) {
        self.flag(kind).store(on, Ordering::SeqCst);
    }

    fn clear(&self) {
        for kind in KINDS {
            self.set(kind, false);
        }
    }

    fn check(&self, kind: Kind) -> std::io::Result<()> {
        if self.flag(kind).load(Ordering::SeqCst) {
            self.injected.fetch_add(1, Ordering::SeqCst);
            return Err(std::io::Error::other(format!("injected {kind:?} fault")));
        }
        Ok(())
    }
}

/// The file backend, failing on command.
#[derive(Debug)]
struct Faulty {
    inner: FileBackend,
    faults: Arc<Faults>,
}

impl StorageBackend for Faulty {
    fn len(&self) -> Result<u64, std::io::Error> {
        self.inner.len()
    }

    fn read(&self, offset: u64, out: &mut [u8]) -> Result<(), std::io::Error> {
        self.faults.check(Kind::Read)?;
        self.inner.read(offset, out)
    }

    fn set_len(&self, len: u64) -> Result<(), std::io::Error> {
        self.faults.check(Kind::SetLen)?;
        self.inner.set_len(len)
    }

    fn sync_data(&self) -> Result<(), std::io::Error> {
        self.faults.check(Kind::SyncData)?;
        self.faults.syncs.fetch_add(1, Ordering::SeqCst);
        self.inner.sync_data()
    }

    fn write(&self, offset: u64, data: &[u8]) -> Result<(), std::io::Error> {
        self.faults.check(Kind::Write)?;
        self.inner.write(offset, data)
    }

    fn close(&self) -> Result<(), std::io::Error> {
        self.inner.close()
    }
}

/// The redb database in `dir`, through a backend that fails on command.
fn faulty_database(
    dir: &Path,
    faults: &Arc<Faults>,
) -> Result<redb::Database, redb::DatabaseError> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(dir.join(DB_FILE))
        .map_err(|e| redb::DatabaseError::Storage(redb::StorageError::Io(e)))?;
    firmware_host::store::database_builder().create_with_backend(Faulty {
        inner: FileBackend::new(file)?,
        faults: Arc::clone(faults),
    })
}

/// The real store on `dir`, through a backend that fails on command.
fn open_faulty(dir: &Path, faults: &Arc<Faults>) -> Store {
    let faults = Arc::clone(faults);
    let data_dir = dir.to_owned();
    std::fs::create_dir_all(dir).expect("data dir");
    let journal_faults = Arc::clone(&faults);
    let journal_path = dir.join(JOURNAL_FILE);
    Store::open_with_journal_blocking(
        dir,
        Box::new(move || faulty_database(&data_dir, &faults)),
        // The journal is on the same card: it fails with the database file.
        Some(Box::new(move || {
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&journal_path)
                .map_err(|e| StoreError::Io {
                    kind: e.kind(),
                    message: e.to_string(),
                })?;
            let inner = FileBackend::new(file).map_err(|e| StoreError::Internal(e.to_string()))?;
            Ok(Box::new(Faulty {
                inner,
                faults: Arc::clone(&journal_faults),
            }) as Box<dyn StorageBackend>)
        })),
    )
    .expect("store opens")
}

/// Waits (bounded) until the store says the card works again.
fn wait_healed(store: &Store, what: &str) -> Duration {
    let started = Instant::now();
    loop {
        let health = store.health();
        if health.state != StorageState::Failing {
            return started.elapsed();
        }
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "{what}: the store did not heal within 15 s: {health:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Stores `game`, retrying as a room does until it is stored (bounded); returns the failures.
fn commit_until_stored(store: &Store, game: &FinishedGame, faults: &Faults) -> u32 {
    let mut failures = 0;
    let started = Instant::now();
    loop {
        match store.commit_game_blocking(game) {
            Ok(updates) => {
                assert_eq!(updates.len(), 2, "{game:?}");
                return failures;
            }
            Err(e) => {
                assert!(e.is_unavailable(), "a card failure is `unavailable`: {e}");
                failures += 1;
                // The card is repaired after a few failures.
                if failures >= 3 {
                    faults.clear();
                }
                assert!(started.elapsed() < Duration::from_secs(20), "{e}");
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }
}

/// Opens the file with the plain store and checks that every game in `stored` is there with
/// ratings equal to a replay, and that the accounts and the saved room are there.
fn check_file(dir: &Path, users: &[(UserId, &str)], stored: &[FinishedGame], room: Option<&str>) {
    let store = Store::open_blocking(dir).expect("the file opens");
    let mut ratings = std::collections::BTreeMap::new();
    for (i, game) in stored.iter().enumerate() {
        let found = store
            .game_blocking(&game.id)
            .expect("read")
            .unwrap_or_else(|| panic!("committed game {} lost", game.id));
        assert_eq!(found.game, *game);
        assert_eq!(found.seq, i as u64, "stored once each, in order");
        let (PlayerRef::User { id: x, .. }, PlayerRef::User { id: o, .. }) = (&game.x, &game.o)
        else {
            unreachable!("rated games seat users")
        };
        let (rx, ro) = (
            *ratings.entry(*x).or_insert(engine::INITIAL_RATING),
            *ratings.entry(*o).or_insert(engine::INITIAL_RATING),
        );
        let score = match game.end.winner() {
            Some(Mark::X) => Score::Win,
            Some(Mark::O) => Score::Loss,
            None => Score::Draw,
        };
        let (dx, d_o) = engine::elo::changes(rx, ro, score);
        assert_eq!(
            (found.updates[0].before, found.updates[0].after),
            (rx, rx + dx)
        );
        ratings.insert(*x, rx + dx);
        ratings.insert(*o, ro + d_o);
    }
    assert_eq!(
        store.game_count_blocking().expect("count"),
        stored.len() as u64,
        "no game stored twice or half"
    );
    for (id, name) in users {
        let (found, record) = store
            .user_by_name_blocking(name)
            .expect("read")
            .unwrap_or_else(|| panic!("account {name} lost"));
        assert_eq!(found, *id);
        assert_eq!(
            record.xo.rating,
            ratings.get(id).copied().unwrap_or(engine::INITIAL_RATING),
            "{name}'s rating is the replay of the stored games"
        );
    }
    let rooms = rooms::Persistence::load_rooms_blocking(&store).expect("rooms");
    if let Some(room) = room {
        assert!(
            rooms.iter().any(|(id, _)| id == room),
            "the room saved before the faults is there: {rooms:?}"
        );
    }
    store.shutdown_blocking();
}

/// Registers Ana and Ben.
fn two_players(store: &Store) -> [(UserId, &'static str); 2] {
    ["Ana", "Ben"].map(|name| {
        let token = [name.as_bytes()[0]; 32];
        let id = store
            .register_blocking(name, HASH, token, now(), now() + DAY_MS)
            .expect("register");
        (id, name)
    })
}

/// A store on a faulty card in `dir`, no fault on yet, with two players and one rated result
/// committed: the faults, the store, the players and that result.
fn store_with_a_result(
    dir: &Path,
) -> (
    Arc<Faults>,
    Store,
    [(UserId, &'static str); 2],
    FinishedGame,
) {
    let faults = Arc::new(Faults::default());
    let store = open_faulty(dir, &faults);
    let users = two_players(&store);
    let first = rated("g0", users[0], users[1], Some(Mark::X));
    store
        .commit_game_blocking(&first)
        .expect("before the fault");
    (faults, store, users, first)
}

/// A card that cannot be read: a write fault forces the database to be reopened, and the
/// reopen must read the file. Reads answer `unavailable` meanwhile; the store heals when the
/// card can be read again.
#[test]
fn a_card_that_cannot_be_read_is_reported_then_healed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (faults, store, users, first) = store_with_a_result(dir.path());
    faults.set(Kind::Read, true);
    faults.set(Kind::Write, true);
    let second = rated("g1", users[1], users[0], None);
    let failed = store.commit_game_blocking(&second);
    assert!(failed.is_err_and(|e| e.is_unavailable()));
    faults.set(Kind::Write, false);
    // The writer's reopen reads the file, and fails.
    std::thread::sleep(Duration::from_millis(1_200));
    let health = store.health();
    assert_eq!(health.state, StorageState::Failing, "{health:?}");
    let read = store.user_by_name_blocking("Ana");
    assert!(
        read.as_ref().is_err_and(|e| e.is_unavailable()),
        "a read of an unreadable card is `unavailable`: {read:?}"
    );
    let injected = faults.injected.load(Ordering::SeqCst);
    faults.clear();
    let healed = wait_healed(&store, "read fault");
    eprintln!("Read fault: {injected} failed calls, healed {healed:?} after the fault went away");
    store.commit_game_blocking(&second).expect("after healing");
    store.shutdown_blocking();
    drop(store);
    check_file(dir.path(), &users, &[first, second], None);
}

#[test]
fn each_kind_of_card_failure_is_reported_then_healed_with_nothing_lost() {
    for kind in KINDS {
        let dir = tempfile::tempdir().expect("temp dir");
        let (faults, store, users, first) = store_with_a_result(dir.path());
        store
            .save_room_blocking("room1", b"a saved room")
            .expect("save");

        faults.set(kind, true);
        // A room save big enough to grow the file (set_len), then a durable result.
        let grow = store.save_room_blocking("room2", &vec![7u8; 2 << 20]);
        if let Err(e) = &grow {
            assert!(e.is_unavailable(), "{kind:?}: {e}");
            let health = store.health();
            assert_eq!(health.state, StorageState::Failing, "{kind:?}: {health:?}");
        }
        let second = rated("g1", users[1], users[0], None);
        let result = store.commit_game_blocking(&second);
        if let Err(e) = &result {
            assert!(e.is_unavailable(), "{kind:?}: {e}");
        }
        match kind {
            Kind::Write | Kind::SyncData => assert!(
                result.is_err(),
                "{kind:?}: a durable commit cannot succeed when the card fails it"
            ),
            // The save waits in the writer's memory and grows the file with the next durable
            // commit, the result's.
            Kind::SetLen => assert!(
                grow.is_err() || result.is_err(),
                "growing the file needs set_len"
            ),
            // redb's cache may answer every read; a read fault is checked when it is hit.
            Kind::Read => {}
        }
        let mut stored = vec![first];
        if result.is_err() {
            let health = store.health();
            assert_eq!(health.state, StorageState::Failing, "{kind:?}: {health:?}");
            assert!(
                health
                    .reason
                    .as_deref()
                    .is_some_and(|r| r.contains("injected")),
                "{kind:?}: the reason is the card's error: {health:?}"
            );
            // Still failing: a retry fails as well, and nothing is half-written.
            let again = store.commit_game_blocking(&second);
            assert!(again.is_err_and(|e| e.is_unavailable()), "{kind:?}");
            faults.clear();
            let healed = wait_healed(&store, &format!("{kind:?}"));
            eprintln!("{kind:?} fault: healed {healed:?} after the fault went away");
            // The kept result is stored now, once.
            let updates = store.commit_game_blocking(&second).expect("after healing");
            assert_eq!(updates.len(), 2);
        } else {
            faults.clear();
        }
        stored.push(second);
        assert!(
            faults.injected.load(Ordering::SeqCst) > 0 || kind == Kind::Read,
            "{kind:?}: the fault was hit"
        );
        store.shutdown_blocking();
        drop(store);
        check_file(dir.path(), &users, &stored, Some("room1"));
    }
}

/// The fault-injection run behind BENCHMARKS.md: rated results committed while random faults
/// come and go; each failed result is kept and retried until stored; the file then holds
/// exactly the results, once each, with ratings equal to their replay.
#[test]
fn results_survive_random_card_failures() {
    let games: usize = std::env::var("XO_FAULT_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60);
    let dir = tempfile::tempdir().expect("temp dir");
    let faults = Arc::new(Faults::default());
    let store = open_faulty(dir.path(), &faults);
    let users = two_players(&store);
    store
        .save_room_blocking("room1", b"a saved room")
        .expect("save");
    let mut rng = StdRng::seed_from_u64(10);
    let mut stored = Vec::new();
    let (mut kept, mut failures) = (0, 0);
    for n in 0..games {
        if rng.random_range(0..3) == 0 {
            faults.set(KINDS[rng.random_range(0..4)], true);
        }
        let winner = [Some(Mark::X), Some(Mark::O), None][rng.random_range(0..3)];
        let (x, o) = if n % 2 == 0 {
            (users[0], users[1])
        } else {
            (users[1], users[0])
        };
        let game = rated(&format!("g{n}"), x, o, winner);
        let failed = commit_until_stored(&store, &game, &faults);
        if failed > 0 {
            kept += 1;
            failures += failed;
        }
        stored.push(game);
        if rng.random_range(0..2) == 0 {
            faults.clear();
        }
    }
    faults.clear();
    let injected = faults.injected.load(Ordering::SeqCst);
    eprintln!(
        "fault injection: {games} rated results, {injected} faults injected, {failures} failed commits, \
         {kept} results kept and stored later, 0 lost"
    );
    assert!(kept > 0, "some results met a fault");
    store.shutdown_blocking();
    drop(store);
    check_file(dir.path(), &users, &stored, Some("room1"));
}

fn settings(idle: u64, url: &str) -> SettingsRecord {
    SettingsRecord {
        kiosk_idle_s: idle,
        public_url: Some(url.into()),
        default_language: StoredLanguage::Ar,
        wifi: Some(StoredWifi {
            ssid: format!("net-{idle}"),
            password: Some(format!("password-{idle}")),
        }),
        screen: None,
    }
}

/// An owner's save while the card fails is refused as `unavailable`; the saved settings are
/// one save whole (the old one when the write failed); after healing a save goes through and
/// survives a reopen.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_settings_save_on_a_failing_card_is_refused_and_leaves_one_save_whole() {
    let dir = tempfile::tempdir().expect("temp dir");
    let faults = Arc::new(Faults::default());
    let store = open_faulty(dir.path(), &faults);
    let first = settings(45, "http://first.example");
    store
        .set_settings(Some(first.clone()))
        .await
        .expect("saved");
    // A save is one small durable commit: it writes pages and syncs them.
    for kind in [Kind::Write, Kind::SyncData] {
        faults.set(kind, true);
        let refused = store
            .set_settings(Some(settings(90, "http://second.example")))
            .await
            .err()
            .unwrap_or_else(|| panic!("{kind:?}: a save succeeded while the card fails"));
        assert!(refused.is_unavailable(), "{kind:?}: {refused}");
        faults.clear();
        let store_for_wait = store.clone();
        tokio::task::spawn_blocking(move || wait_healed(&store_for_wait, "settings"))
            .await
            .expect("waited");
        // A failed sync may leave the refused save on the card after all (the server then
        // reads the settings again once healed): either save, whole, never a mix.
        let now = store.settings_blocking().expect("read");
        assert!(
            now == Some(first.clone()) || now == Some(settings(90, "http://second.example")),
            "{kind:?}: one save whole: {now:?}"
        );
        if kind == Kind::Write {
            assert_eq!(
                now,
                Some(first.clone()),
                "a save whose write failed is not stored"
            );
        }
    }
    let second = settings(90, "http://second.example");
    store
        .set_settings(Some(second.clone()))
        .await
        .expect("saved after healing");
    let closing = store.clone();
    tokio::task::spawn_blocking(move || closing.shutdown_blocking())
        .await
        .expect("shut down");
    drop(store);
    let reopened = tokio::task::spawn_blocking({
        let dir = dir.path().to_owned();
        move || Store::open_blocking(&dir).expect("reopens")
    })
    .await
    .expect("opened");
    assert_eq!(
        reopened.settings_blocking().expect("read"),
        Some(second),
        "the save after healing is on the card"
    );
    tokio::task::spawn_blocking(move || reopened.shutdown_blocking())
        .await
        .expect("shut down");
}

/// Starting on a file that needs no change commits nothing: opening the store syncs the card
/// no more often than opening the bare redb database does (redb's own open; closing is not
/// counted), since each sync costs milliseconds on an SD card before the server can answer.
#[test]
fn reopening_an_unchanged_store_commits_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (faults, store, users, first) = store_with_a_result(dir.path());
    store.shutdown_blocking();
    drop(store);
    let before = faults.syncs.load(Ordering::SeqCst);
    let bare = faulty_database(dir.path(), &faults).expect("redb opens");
    let redb_open = faults.syncs.load(Ordering::SeqCst) - before;
    // Closing writes redb's allocator state (its own commit), so that the next open finds
    // the file as the store left it.
    drop(bare);
    let before = faults.syncs.load(Ordering::SeqCst);
    let store = open_faulty(dir.path(), &faults);
    let store_open = faults.syncs.load(Ordering::SeqCst) - before;
    assert_eq!(
        store_open, redb_open,
        "opening an unchanged store synced {store_open} times, redb's own open {redb_open}"
    );
    let found = store
        .game_blocking(&first.id)
        .expect("read")
        .expect("the stored game");
    assert_eq!(found.game, first);
    for (id, name) in users {
        let (found, _) = store
            .user_by_name_blocking(name)
            .expect("read")
            .unwrap_or_else(|| panic!("account {name} lost"));
        assert_eq!(found, id);
    }
    store.shutdown_blocking();
}
