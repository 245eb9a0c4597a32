//! Power cuts in the middle of bursts of play, on the real store (redb and the play journal)
//! through a card model: every write the store makes goes to a `StorageBackend` (redb's own
//! trait) that keeps what the card would keep. Data reaches the card for certain only at a
//! `sync_data`; a cut keeps what was synced plus any subset of the writes since (each write
//! kept whole, dropped, or torn at a 512-byte sector), as an SD card may. The cut takes both
//! files at one instant while four threads commit rated results, save and delete open rooms.
//!
//! After every cut the store opens from what was kept, and then: every result acknowledged
//! before the cut is there; no result is half there (each player's wins, losses and draws
//! are exactly the stored games'); every room save acknowledged before the cut and not
//! deleted is there, every acknowledged delete holds. Play goes on from the kept state for
//! the next round, so later rounds cut a journal that earlier recoveries wrote.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use engine::Mark;
use firmware_host::store::{DURABLE_WITHIN, SESSIONS_KEPT, Store};
use protocol::records::{FinishedGame, PlayerRef, UserId};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use redb::StorageBackend;

use rooms::Persistence as _;

use crate::support::store::{BlockingWrites, rated};

const SECTOR: usize = 512;
const ROUNDS: usize = 15;
const THREADS: usize = 4;
const PLAYERS: usize = 4;

/// A write since the last sync: kept, dropped or torn when the power goes.
#[derive(Debug, Clone)]
enum Pending {
    Write { offset: u64, data: Vec<u8> },
    SetLen(u64),
}

/// One file on the card: what the store sees (`current`), what is certainly on the card
/// (`synced`), and the writes between.
#[derive(Debug, Default, Clone)]
struct File {
    current: Vec<u8>,
    synced: Vec<u8>,
    pending: Vec<Pending>,
}

fn apply(bytes: &mut Vec<u8>, op: &Pending) {
    match op {
        Pending::Write { offset, data } => {
            let start = *offset as usize;
            if bytes.len() < start + data.len() {
                bytes.resize(start + data.len(), 0);
            }
            bytes[start..start + data.len()].copy_from_slice(data);
        }
        Pending::SetLen(len) => bytes.resize(*len as usize, 0),
    }
}

impl File {
    /// What a power cut leaves: the synced bytes, then each later write kept, dropped, or
    /// torn to some of its sectors.
    fn cut(&self, rng: &mut StdRng) -> File {
        let mut kept = self.synced.clone();
        for op in &self.pending {
            match rng.random_range(0..4) {
                0 => {} // never reached the card
                1 => {
                    if let Pending::Write { offset, data } = op {
                        for (i, sector) in data.chunks(SECTOR).enumerate() {
                            if rng.random_bool(0.5) {
                                let part = Pending::Write {
                                    offset: offset + (i * SECTOR) as u64,
                                    data: sector.to_vec(),
                                };
                                apply(&mut kept, &part);
                            }
                        }
                    } else {
                        apply(&mut kept, op);
                    }
                }
                _ => apply(&mut kept, op),
            }
        }
        File {
            current: kept.clone(),
            synced: kept,
            pending: Vec::new(),
        }
    }
}

/// The card: both of the store's files behind one lock, so that a cut takes them at one
/// instant.
#[derive(Debug, Default)]
struct Card {
    files: Mutex<[File; 2]>,
    plan: Mutex<Plan>,
}

/// A cut the card takes itself, right after its `at`-th write of the round (before any
/// sync that would follow it): in the middle of a checkpoint, or between a journal record
/// and its sync.
#[derive(Debug, Default)]
struct Plan {
    at: Option<u64>,
    /// The file whose writes are counted.
    file: usize,
    writes: u64,
    told: Option<Arc<Mutex<Told>>>,
    rng: Option<StdRng>,
    taken: Option<Cut>,
}

/// What a cut left: the card, what the threads had been told, and when.
#[derive(Debug)]
struct Cut {
    card: Arc<Card>,
    told: Told,
    at: Instant,
    unsynced: bool,
}

const DB: usize = 0;
const JOURNAL: usize = 1;

impl Card {
    /// Cuts the power now: called with the files held, so nothing is synced meanwhile and
    /// every acknowledgement in `told` was synced before.
    fn cut_held(files: &[File; 2], told: &Mutex<Told>, rng: &mut StdRng) -> Cut {
        let told = told.lock().expect("told").clone();
        Cut {
            card: Arc::new(Card {
                files: Mutex::new([files[DB].cut(rng), files[JOURNAL].cut(rng)]),
                plan: Mutex::default(),
            }),
            told,
            at: Instant::now(),
            unsynced: files.iter().any(|f| !f.pending.is_empty()),
        }
    }

    fn cut(&self, told: &Mutex<Told>, rng: &mut StdRng) -> Cut {
        let files = self.files.lock().expect("card");
        Card::cut_held(&files, told, rng)
    }

    /// Counts a write (the files held) and takes the planned cut when it is due.
    fn wrote(&self, files: &[File; 2], file: usize) {
        let mut plan = self.plan.lock().expect("plan");
        if plan.file != file {
            return;
        }
        plan.writes += 1;
        if plan.taken.is_none()
            && plan.at == Some(plan.writes)
            && let (Some(told), Some(mut rng)) = (plan.told.clone(), plan.rng.take())
        {
            plan.taken = Some(Card::cut_held(files, &told, &mut rng));
        }
    }
}

#[derive(Debug)]
struct OnCard {
    card: Arc<Card>,
    file: usize,
}

impl StorageBackend for OnCard {
    fn len(&self) -> Result<u64, std::io::Error> {
        Ok(self.card.files.lock().expect("card")[self.file]
            .current
            .len() as u64)
    }

    fn read(&self, offset: u64, out: &mut [u8]) -> Result<(), std::io::Error> {
        let files = self.card.files.lock().expect("card");
        let bytes = &files[self.file].current;
        let start = offset as usize;
        if start + out.len() > bytes.len() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "read past the end",
            ));
        }
        out.copy_from_slice(&bytes[start..start + out.len()]);
        Ok(())
    }

    fn set_len(&self, len: u64) -> Result<(), std::io::Error> {
        let mut files = self.card.files.lock().expect("card");
        let file = &mut files[self.file];
        let op = Pending::SetLen(len);
        apply(&mut file.current, &op);
        file.pending.push(op);
        self.card.wrote(&files, self.file);
        Ok(())
    }

    fn sync_data(&self) -> Result<(), std::io::Error> {
        let mut files = self.card.files.lock().expect("card");
        let file = &mut files[self.file];
        file.synced = file.current.clone();
        file.pending.clear();
        Ok(())
    }

    fn write(&self, offset: u64, data: &[u8]) -> Result<(), std::io::Error> {
        let mut files = self.card.files.lock().expect("card");
        let file = &mut files[self.file];
        let op = Pending::Write {
            offset,
            data: data.to_vec(),
        };
        apply(&mut file.current, &op);
        file.pending.push(op);
        self.card.wrote(&files, self.file);
        Ok(())
    }

    fn close(&self) -> Result<(), std::io::Error> {
        Ok(())
    }
}

/// The real store on `card` (its data directory holds nothing the store writes: both files
/// are on the card).
fn open_on(card: &Arc<Card>, dir: &std::path::Path) -> Store {
    let db = Arc::clone(card);
    let journal = Arc::clone(card);
    Store::open_with_journal_blocking(
        dir,
        Box::new(move || {
            firmware_host::store::database_builder().create_with_backend(OnCard {
                card: Arc::clone(&db),
                file: DB,
            })
        }),
        Some(Box::new(move || {
            Ok(Box::new(OnCard {
                card: Arc::clone(&journal),
                file: JOURNAL,
            }) as Box<dyn StorageBackend>)
        })),
    )
    .expect("the store opens from what the card kept")
}

/// A room's saved state: `None` when it is not saved.
type RoomState = Option<Vec<u8>>;

/// What the threads were told before the cut, and everything they tried.
#[derive(Debug, Default, Clone)]
struct Told {
    games: BTreeSet<String>,
    /// Sessions created, in the order they were acknowledged, with their player (a durable
    /// write: each is a checkpoint of the journal).
    sessions: Vec<(UserId, [u8; 32])>,
    tried: BTreeMap<String, FinishedGame>,
    /// Each room's writes in order, with when each was acknowledged (a room is written by
    /// one thread, one write at a time).
    rooms: BTreeMap<String, Vec<(RoomState, Option<Instant>)>>,
}

impl Told {
    /// The states room `room` may be in after a cut at `cut_at`, when it was `before` at
    /// the round's start: an open room's play is lost for at most the last
    /// [`DURABLE_WITHIN`], so the last write acknowledged that long before the cut, or any
    /// write after it.
    fn room_may_be(&self, room: &str, before: &RoomState, cut_at: Instant) -> Vec<RoomState> {
        let writes = self.rooms.get(room).map(Vec::as_slice).unwrap_or_default();
        let settled = writes
            .iter()
            .rposition(|(_, acked)| acked.is_some_and(|at| at + DURABLE_WITHIN <= cut_at));
        let mut may = vec![match settled {
            Some(i) => writes[i].0.clone(),
            None => before.clone(),
        }];
        let after = settled.map_or(0, |i| i + 1);
        may.extend(writes[after..].iter().map(|(state, _)| state.clone()));
        may
    }
}

/// A random player signs in (a durable write: a checkpoint of the journal); an acknowledged
/// sign-in is told.
fn sign_in(store: &Store, told: &Mutex<Told>, players: &[(UserId, &str)], rng: &mut StdRng) {
    let token: [u8; 32] = rng.random();
    let user = players[rng.random_range(0..players.len())].0;
    let now = firmware_host::clock::now_ms();
    if store
        .create_session_blocking(token, user, now, now + 3_600_000)
        .is_ok()
    {
        told.lock().expect("told").sessions.push((user, token));
    }
}

#[test]
fn power_cuts_during_bursts_of_results_and_room_saves_lose_nothing_acknowledged() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut rng = StdRng::seed_from_u64(29);
    let mut card = Arc::new(Card::default());
    let store = open_on(&card, dir.path());
    let now = firmware_host::clock::now_ms();
    let names = ["Sara", "Omar", "Lina", "Adam"];
    let players: Vec<(UserId, &str)> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let id = store
                .register_blocking(name, "$argon2id$not-a-real-hash", [i as u8; 32], now, now)
                .expect("registered");
            (id, *name)
        })
        .collect();
    store.shutdown_blocking();
    drop(store);

    let mut all_tried: BTreeMap<String, FinishedGame> = BTreeMap::new();
    // The rooms as the last round's recovery found them.
    let mut rooms: BTreeMap<String, RoomState> = BTreeMap::new();
    let mut cuts_with_unsynced = 0;
    for round in 0..ROUNDS {
        let store = Arc::new(open_on(&card, dir.path()));
        let told = Arc::new(Mutex::new(Told::default()));
        if round % 3 == 1 {
            // Alternately inside a checkpoint (the database file's pages written, its
            // header not yet synced) and between a journal record and its sync.
            let (file, at) = if round % 2 == 0 {
                (DB, rng.random_range(1..=12))
            } else {
                (JOURNAL, rng.random_range(1..=300))
            };
            *card.plan.lock().expect("plan") = Plan {
                at: Some(at),
                file,
                told: Some(Arc::clone(&told)),
                rng: Some(StdRng::seed_from_u64(rng.random())),
                ..Plan::default()
            };
        }
        let stop = Arc::new(AtomicBool::new(false));
        let workers: Vec<_> = (0..THREADS)
            .map(|t| {
                let (store, told, stop) =
                    (Arc::clone(&store), Arc::clone(&told), Arc::clone(&stop));
                let players = players.clone();
                let seed = (round * THREADS + t) as u64;
                std::thread::spawn(move || {
                    let mut rng = StdRng::seed_from_u64(seed);
                    let mut n = 0;
                    while !stop.load(Ordering::SeqCst) && n < 20_000 {
                        n += 1;
                        if rng.random_range(0..40) == 0 {
                            // A sign-in: durable at once, the journal checkpointed.
                            sign_in(&store, &told, &players, &mut rng);
                            continue;
                        }
                        if rng.random_range(0..3) == 0 {
                            let room = format!("room-{t}-{}", rng.random_range(0..6));
                            let state = rng
                                .random_bool(0.6)
                                .then(|| vec![round as u8, (n % 256) as u8, t as u8]);
                            told.lock()
                                .expect("told")
                                .rooms
                                .entry(room.clone())
                                .or_default()
                                .push((state.clone(), None));
                            let done = match &state {
                                Some(bytes) => store.save_room_blocking(&room, bytes),
                                None => store.delete_room_blocking(&room),
                            };
                            if done.is_ok()
                                && let Some(last) = told
                                    .lock()
                                    .expect("told")
                                    .rooms
                                    .get_mut(&room)
                                    .and_then(|w| w.last_mut())
                            {
                                last.1 = Some(Instant::now());
                            }
                            continue;
                        }
                        let a = rng.random_range(0..PLAYERS);
                        let b = (a + rng.random_range(1..PLAYERS)) % PLAYERS;
                        let winner = [Some(Mark::X), Some(Mark::O), None][rng.random_range(0..3)];
                        let id = format!("r{round}-t{t}-g{n}");
                        let g = rated(&id, players[a], players[b], winner);
                        told.lock()
                            .expect("told")
                            .tried
                            .insert(id.clone(), g.clone());
                        if store.commit_game_blocking(&g).is_ok() {
                            told.lock().expect("told").games.insert(id);
                        }
                    }
                })
            })
            .collect();

        // The power goes at a random moment of the burst: right after a chosen write of
        // the card (one round in three), or at a random time, short or (one round in three)
        // past the open rooms' bound. Held or taken inside the card, nothing is synced
        // during the cut: every acknowledgement told before it was synced before it.
        let cut = match round % 3 {
            1 => {
                let deadline = Instant::now() + Duration::from_secs(30);
                let mut nudged = Instant::now();
                loop {
                    if let Some(cut) = card.plan.lock().expect("plan").taken.take() {
                        break cut;
                    }
                    if Instant::now() > deadline {
                        break card.cut(&told, &mut rng);
                    }
                    if nudged.elapsed() > Duration::from_millis(100) {
                        // The threads' own sign-ins are random: one more, a checkpoint, so
                        // that a planned write of the database file comes on a slow machine.
                        sign_in(&store, &told, &players, &mut rng);
                        nudged = Instant::now();
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
            mode => {
                std::thread::sleep(if mode == 2 {
                    DURABLE_WITHIN + Duration::from_millis(rng.random_range(100..600))
                } else {
                    Duration::from_millis(rng.random_range(5..80))
                });
                card.cut(&told, &mut rng)
            }
        };
        if cut.unsynced {
            cuts_with_unsynced += 1;
        }
        let at_write = card.plan.lock().expect("plan").at.is_some() && cut.unsynced;
        println!(
            "round {round}: cut {}, {} results acknowledged",
            if at_write {
                "at a planned write"
            } else if cut.unsynced {
                "between a write and its sync"
            } else {
                "with everything written synced"
            },
            cut.told.games.len()
        );
        let (kept, at_cut, cut_at) = (cut.card, cut.told, cut.at);
        stop.store(true, Ordering::SeqCst);
        for w in workers {
            w.join().expect("worker");
        }
        // The old store goes on writing to the card the cut left behind; it is dropped.
        let store = Arc::into_inner(store).expect("workers gone");
        store.shutdown_blocking();
        drop(store);
        all_tried.extend(told.lock().expect("told").tried.clone());
        card = kept;

        // After the cut, from what the card kept.
        let started = Instant::now();
        let after = open_on(&card, dir.path());
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "round {round}: recovery took {:?}",
            started.elapsed()
        );
        let now = firmware_host::clock::now_ms();
        // A player keeps their newest SESSIONS_KEPT sessions; a sign-in still in flight at the
        // cut (one a thread, one more of the nudges) may have signed one more out.
        let mut newest: BTreeMap<UserId, Vec<[u8; 32]>> = BTreeMap::new();
        for (user, token) in at_cut.sessions.iter().rev() {
            let kept = newest.entry(*user).or_default();
            if kept.len() < SESSIONS_KEPT - THREADS - 1 {
                kept.push(*token);
            }
        }
        for token in newest.values().flatten() {
            assert!(
                after
                    .session_account_blocking(token, now)
                    .expect("read")
                    .is_some(),
                "round {round}: an acknowledged sign-in was lost in the cut"
            );
        }
        for id in &at_cut.games {
            assert!(
                after.game_blocking(id).expect("read").is_some(),
                "round {round}: the acknowledged result {id} was lost in the cut"
            );
        }
        // Each player's record is exactly the stored games: nothing half there.
        let mut expected: BTreeMap<UserId, (u32, u32, u32)> = BTreeMap::new();
        let mut stored = 0;
        for (id, g) in &all_tried {
            if after.game_blocking(id).expect("read").is_none() {
                continue;
            }
            stored += 1;
            let (PlayerRef::User { id: x, .. }, PlayerRef::User { id: o, .. }) = (&g.x, &g.o)
            else {
                unreachable!("rated games seat users")
            };
            let winner = g.end.winner();
            for (who, mark) in [(*x, Mark::X), (*o, Mark::O)] {
                let e = expected.entry(who).or_default();
                match winner {
                    Some(w) if w == mark => e.0 += 1,
                    Some(_) => e.2 += 1,
                    None => e.1 += 1,
                }
            }
        }
        assert_eq!(
            after.game_count_blocking().expect("count"),
            stored,
            "round {round}: the game counter agrees with the games"
        );
        for (id, name) in &players {
            let (_, record) = after
                .user_by_name_blocking(&name.to_lowercase())
                .expect("read")
                .expect("the player");
            let e = expected.get(id).copied().unwrap_or_default();
            assert_eq!(
                (record.xo.wins, record.xo.draws, record.xo.losses),
                e,
                "round {round}: {name}'s record agrees with the stored games"
            );
        }
        // Each room as a write at most the bound before the cut left it, or a later one;
        // nothing else.
        let saved: BTreeMap<String, Vec<u8>> = after
            .load_rooms_blocking()
            .expect("rooms")
            .into_iter()
            .collect();
        let names: BTreeSet<String> = saved
            .keys()
            .chain(rooms.keys())
            .chain(at_cut.rooms.keys())
            .cloned()
            .collect();
        for room in names {
            let now = saved.get(&room).cloned();
            let before = rooms.get(&room).cloned().flatten();
            let may = at_cut.room_may_be(&room, &before, cut_at);
            assert!(
                may.contains(&now),
                "round {round}: room {room} is {now:?}; it may be one of {may:?}"
            );
        }
        rooms = saved
            .into_iter()
            .map(|(id, state)| (id, Some(state)))
            .collect();
        after.shutdown_blocking();
        drop(after);
        // What is on the card now (the recovery's own writes included) is what the next
        // round starts from; the recovery's unsynced writes are cut away too.
        card = card.cut(&Mutex::default(), &mut rng).card;
    }
    let acknowledged = all_tried.len();
    println!(
        "{ROUNDS} cuts, {cuts_with_unsynced} with writes not yet synced; {acknowledged} results tried"
    );
    assert!(
        cuts_with_unsynced >= ROUNDS / 3,
        "the cuts at a write fell between a write and its sync ({cuts_with_unsynced} of {ROUNDS})"
    );
}
