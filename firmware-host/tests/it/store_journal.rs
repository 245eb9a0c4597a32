//! The play journal on the real store and real files: results acknowledged by a journaled
//! commit survive what a power cut leaves of the data directory (the database file at its
//! last durable commit, and the journal as synced), and a torn last record is ignored.
//!
//! A power cut is taken as a copy of the data directory while the store runs: redb writes
//! nothing to its file between durable commits (the journaled commits' pages are in its
//! memory), so the copy holds exactly what the card would.

use std::path::{Path, PathBuf};

use engine::Mark;
use firmware_host::store::{DB_FILE, JOURNAL_FILE, Store};
use protocol::records::UserId;

use crate::support::store::{BlockingWrites, rated, register};

/// What a power cut leaves of `from`: its files as they are on the card now.
fn power_cut_copy(from: &Path, to: &Path, journal: bool) {
    std::fs::create_dir_all(to).expect("copy dir");
    std::fs::copy(from.join(DB_FILE), to.join(DB_FILE)).expect("copy the database");
    if journal {
        std::fs::copy(from.join(JOURNAL_FILE), to.join(JOURNAL_FILE)).expect("copy the journal");
    }
}

/// Sara beats Omar `games` times; answers (Sara's, Omar's) XO ratings as the store says.
fn play(store: &Store, games: usize) -> (i32, i32, UserId, UserId) {
    let sara = register(store, "Sara", 1);
    let omar = register(store, "Omar", 2);
    let mut last = Vec::new();
    for n in 0..games {
        last = store
            .commit_game_blocking(&rated(
                &format!("g{n}"),
                (sara, "Sara"),
                (omar, "Omar"),
                Some(Mark::X),
            ))
            .expect("a rated result is acknowledged");
    }
    let rating = |who: UserId| {
        last.iter()
            .find(|u| u.user == who)
            .map(|u| u.after)
            .expect("an update for each player")
    };
    (rating(sara), rating(omar), sara, omar)
}

/// Sara's XO rating and wins, as the store says.
fn sara_xo(store: &Store) -> (i32, u32) {
    let (_, record) = store
        .user_by_name_blocking("sara")
        .expect("read")
        .expect("Sara");
    (record.xo.rating, record.xo.wins)
}

/// A store in a new directory where Sara beats Omar `games` times, cut off by a power cut
/// (its data directory copied to `cut`, then shut down): the directory, the cut copy, and
/// what [`play`] answers.
fn played_then_cut(games: usize) -> (tempfile::TempDir, PathBuf, (i32, i32, UserId, UserId)) {
    let dir = tempfile::tempdir().expect("temp dir");
    let live = dir.path().join("live");
    let store = Store::open_blocking(&live).expect("store opens");
    let played = play(&store, games);
    let cut = dir.path().join("cut");
    power_cut_copy(&live, &cut, true);
    store.shutdown_blocking();
    (dir, cut, played)
}

#[test]
fn acknowledged_results_survive_a_power_cut_through_the_journal_alone() {
    let dir = tempfile::tempdir().expect("temp dir");
    let live = dir.path().join("live");
    let store = Store::open_blocking(&live).expect("store opens");
    let (sara_rating, omar_rating, sara, omar) = play(&store, 12);
    let cut = dir.path().join("cut");
    power_cut_copy(&live, &cut, true);
    let without_journal = dir.path().join("no-journal");
    power_cut_copy(&live, &without_journal, false);
    store.shutdown_blocking();

    // The database file alone is at its last durable commit (the registrations): the
    // results were made durable by the journal, not by the file.
    let bare = Store::open_with_blocking(
        &without_journal,
        Box::new({
            let path = without_journal.join(DB_FILE);
            move || firmware_host::store::create_database(&path)
        }),
    )
    .expect("the bare file opens");
    assert_eq!(
        bare.game_count_blocking().expect("count"),
        0,
        "no result reached the database file before the checkpoint"
    );
    bare.shutdown_blocking();

    let after = Store::open_blocking(&cut).expect("the cut directory opens");
    assert_eq!(after.game_count_blocking().expect("count"), 12);
    assert_eq!(
        after.recent_games_blocking(sara, 20).expect("games").len(),
        12
    );
    assert_eq!(sara_xo(&after), (sara_rating, 12));
    let (_, record) = after
        .user_by_name_blocking("omar")
        .expect("read")
        .expect("Omar");
    assert_eq!(record.xo.rating, omar_rating);
    assert_eq!(record.xo.losses, 12);
    assert_eq!(
        after.recent_games_blocking(omar, 20).expect("games").len(),
        12
    );
    // Applied once: opening again (the journal's records are now in the file, a new epoch
    // begun) adds nothing.
    after.shutdown_blocking();
    drop(after);
    let again = Store::open_blocking(&cut).expect("opens again");
    assert_eq!(again.game_count_blocking().expect("count"), 12);
    assert_eq!(sara_xo(&again), (sara_rating, 12));
    again.shutdown_blocking();
}

#[test]
fn a_torn_last_record_ends_the_journal_and_nothing_else_is_lost() {
    let (_dir, cut, _) = played_then_cut(5);

    // The power cut tore the last record: its last byte never reached the card.
    let journal = std::fs::read(cut.join(JOURNAL_FILE)).expect("journal");
    let end = journal
        .iter()
        .rposition(|&b| b != 0)
        .expect("the journal holds records");
    let mut torn = journal.clone();
    torn[end] ^= 0xff;
    std::fs::write(cut.join(JOURNAL_FILE), &torn).expect("tear");

    let after = Store::open_blocking(&cut).expect("a torn journal opens");
    assert_eq!(
        after.game_count_blocking().expect("count"),
        4,
        "the four whole records are applied, the torn fifth is not"
    );
    let (_, record) = after
        .user_by_name_blocking("sara")
        .expect("read")
        .expect("Sara");
    assert_eq!(
        record.xo.wins, 4,
        "ratings and records agree with the games"
    );
    // The store works on: a new result after the torn one is kept.
    let omar = after
        .user_by_name_blocking("omar")
        .expect("read")
        .expect("Omar")
        .0;
    let sara = after
        .user_by_name_blocking("sara")
        .expect("read")
        .expect("Sara")
        .0;
    after
        .commit_game_blocking(&rated(
            "g-next",
            (sara, "Sara"),
            (omar, "Omar"),
            Some(Mark::X),
        ))
        .expect("committed after recovery");
    after.shutdown_blocking();
    drop(after);
    let again = Store::open_blocking(&cut).expect("opens again");
    assert_eq!(again.game_count_blocking().expect("count"), 5);
    again.shutdown_blocking();
}

/// The end of the journal's records (each head: magic, length, checksum, epoch) and the
/// epoch they carry.
fn records_end(journal: &[u8]) -> (usize, u64) {
    let mut at = 0;
    let mut epoch = 0;
    while journal.get(at..at + 4) == Some(b"XOJ1".as_slice()) {
        let size = u32::from_le_bytes(journal[at + 4..at + 8].try_into().expect("length")) as usize;
        epoch = u64::from_le_bytes(journal[at + 12..at + 20].try_into().expect("epoch"));
        at += 20 + size;
    }
    (at, epoch)
}

#[test]
fn a_whole_record_of_a_newer_version_is_kept_and_the_store_opens() {
    let (dir, cut, (sara_rating, _, sara, omar)) = played_then_cut(3);

    // After the three results, a whole record (its checksum right) of a kind this version
    // does not know, as a newer version rolled back from would leave.
    let mut journal = std::fs::read(cut.join(JOURNAL_FILE)).expect("journal");
    let (end, epoch) = records_end(&journal);
    assert!(end > 0, "the results are in the journal");
    let payload = [0x01, 0x7f, 0xff, 0xff, 0xff, 0xff, 0x0f];
    let mut crc = crc32fast::Hasher::new();
    crc.update(&epoch.to_le_bytes());
    crc.update(&payload);
    let mut record = b"XOJ1".to_vec();
    record.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    record.extend_from_slice(&crc.finalize().to_le_bytes());
    record.extend_from_slice(&epoch.to_le_bytes());
    record.extend_from_slice(&payload);
    journal[end..end + record.len()].copy_from_slice(&record);
    std::fs::write(cut.join(JOURNAL_FILE), &journal).expect("write");

    let after = Store::open_blocking(&cut).expect("the store opens past a record it cannot read");
    assert_eq!(after.game_count_blocking().expect("count"), 3);
    assert_eq!(sara_xo(&after), (sara_rating, 3));
    // Play goes on, and survives the next power cut through the new epoch.
    after
        .commit_game_blocking(&rated(
            "g-next",
            (sara, "Sara"),
            (omar, "Omar"),
            Some(Mark::X),
        ))
        .expect("committed after the unreadable record");
    let again = dir.path().join("again");
    power_cut_copy(&cut, &again, true);
    after.shutdown_blocking();
    let reopened = Store::open_blocking(&again).expect("opens again");
    assert_eq!(reopened.game_count_blocking().expect("count"), 4);
    reopened.shutdown_blocking();
}
