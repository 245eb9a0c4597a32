//! A room task's address ([`RoomHandle`]) and what it receives ([`RoomMsg`]): what sessions,
//! the lobby and other rooms hold to reach a room.

use std::sync::{Arc, OnceLock};

use protocol::records::UserId;
use protocol::{EncodedSeats, Frame, Framing, RequestId, RoomId, RoomView, ServerMsg, YouView};
use tokio::sync::{mpsc, oneshot};

use crate::results::Stored;
use crate::room::{ConnId, Intent, Member};

/// Where a connection's outgoing messages go. Bounded: a connection that does not keep up is
/// dropped from the room rather than slowing it down.
pub(crate) type Outbox = mpsc::Sender<ToSession>;

/// What a room sends a connection's session.
pub(crate) enum ToSession {
    /// A message for the client. Boxed: every connection's queue holds blocks of 32 of these
    /// from its first message on, so their size is memory per connection.
    Msg(Box<ServerMsg>),
    /// A message for several clients (a snapshot every spectator sees, an event for all),
    /// encoded once per framing whoever sends it first.
    Shared(Arc<SharedMsg>),
    /// A room snapshot built once for all its readers ([`Room::views_differ_only_in_you`]),
    /// with this reader's `you` and the request id echoed to them.
    ///
    /// [`Room::views_differ_only_in_you`]: crate::room::Room::views_differ_only_in_you
    Room {
        room: Arc<SharedRoom>,
        id: Option<RequestId>,
        you: YouView,
    },
    /// M3.12: the room's next game is `room`; make it the current room and open it, echoing
    /// `id` (the request that made it, for its sender) in the snapshot.
    /// Boxed: rare, and the largest kind would set the size of every queued message.
    Follow(Box<(RoomHandle, Option<RequestId>)>),
    /// EV3: send the message (`paired`), then leave the current room and open `room`, the
    /// player's new event game. Boxed, as `Follow`.
    Enter(Box<(ServerMsg, RoomHandle)>),
}

/// One message for an audience, with its encodings once made.
#[derive(Debug)]
pub(crate) struct SharedMsg {
    pub(crate) msg: ServerMsg,
    text: OnceLock<Frame>,
    binary: OnceLock<Frame>,
}

impl SharedMsg {
    pub(crate) fn new(msg: ServerMsg) -> Arc<SharedMsg> {
        Arc::new(SharedMsg {
            msg,
            text: OnceLock::new(),
            binary: OnceLock::new(),
        })
    }

    /// The message in `framing`, encoded at the first call for that framing; every reader
    /// copies it into its own write buffer from here.
    pub(crate) fn frame(&self, framing: Framing) -> &Frame {
        let cell = match framing {
            Framing::Text => &self.text,
            Framing::Binary => &self.binary,
        };
        cell.get_or_init(|| self.msg.encode(framing))
    }
}

/// One room snapshot for readers whose views differ only in `you`: built once, and its
/// encoding up to `you` made once per framing a reader reads (a move's snapshot was
/// built and encoded whole for each player and once more for the spectators). The kiosk's UI
/// reads postcard, most other clients JSON; a head is made by the first reader of its framing,
/// so an audience of one framing costs one head.
#[derive(Debug)]
pub(crate) struct SharedRoom {
    /// The view; its `seats` are not read (a room leaves them empty): the encodings take them
    /// from `seats`.
    view: RoomView,
    /// The seats, kept by the room from one snapshot to the next while they stay the same,
    /// their JSON and postcard made at the first reader of each framing ([`EncodedSeats`]).
    ///
    /// [`EncodedSeats`]: protocol::EncodedSeats
    seats: Arc<EncodedSeats>,
    /// [`RoomView::json_head`], each JSON reader's text written from it straight into the
    /// reader's write buffer ([`SharedRoom::text_into`]).
    head: OnceLock<String>,
    /// [`RoomView::postcard_head`], likewise for binary readers ([`SharedRoom::binary_into`]).
    postcard: OnceLock<Vec<u8>>,
}

impl SharedRoom {
    pub(crate) fn new(view: RoomView, seats: Arc<EncodedSeats>) -> Arc<SharedRoom> {
        Arc::new(SharedRoom {
            view,
            seats,
            head: OnceLock::new(),
            postcard: OnceLock::new(),
        })
    }

    /// The JSON text of the snapshot for one reader, appended to `out` (a connection's write
    /// buffer).
    pub(crate) fn text_into(&self, out: &mut Vec<u8>, id: Option<RequestId>, you: YouView) {
        let head = self
            .head
            .get_or_init(|| self.view.json_head_with_seats(self.seats.json()));
        protocol::room_json_into(out, id, head, &you, self.view.rematch_offer);
    }

    /// The postcard of the snapshot for one reader (binary framing), appended to `out`.
    pub(crate) fn binary_into(&self, out: &mut Vec<u8>, id: Option<RequestId>, you: YouView) {
        let head = self
            .postcard
            .get_or_init(|| self.view.postcard_head_with_seats(self.seats.postcard()));
        protocol::room_postcard_into(out, id, head, &you, self.view.rematch_offer);
    }
}

/// What a room task receives.
pub(crate) enum RoomMsg {
    /// An intent from a connection, with that connection's outbox (kept when the intent makes
    /// it a viewer). Boxed: every room's queue holds a block of 32 messages from its first on,
    /// for as long as the room is open (finished rooms too), so their size is memory per room
    /// (64 bytes each unboxed, 2 KB a room).
    Intent(Box<IntentMsg>),
    /// A connection closed or switched to another room.
    Disconnect { conn: ConnId },
    /// M3.4: the player moved to room `to`; reopen their waiting seat here. Boxed, as the
    /// rare messages are: a room's queue block holds 32 messages of the largest kind, and
    /// one of 16 bytes each stays within glibc's per-thread cache of small blocks.
    Vacate(Box<(UserId, RoomId)>),
    /// Save and stop; answer when saved.
    Shutdown { done: oneshot::Sender<()> },
    /// Its creator has many rooms open: close now if nobody views it and it is not an online
    /// game waiting or in progress (as the idle timeout would later).
    CloseIfIdle,
    /// Close now, whatever the room's state (an owner's decision), telling every viewer why.
    Close(Box<protocol::CloseReason>),
    /// What became of a finished game's result (`results`).
    Stored(Box<Stored>),
}

impl From<Stored> for RoomMsg {
    fn from(stored: Stored) -> RoomMsg {
        RoomMsg::Stored(Box::new(stored))
    }
}

/// An intent from a connection ([`RoomMsg::Intent`]).
pub(crate) struct IntentMsg {
    /// Shared with the session: an intent costs no copy of the member's names.
    pub(crate) member: Arc<Member>,
    pub(crate) intent: Intent,
    pub(crate) id: Option<RequestId>,
    pub(crate) outbox: Outbox,
    /// Told whether the connection views the room after the intent (it was accepted), for
    /// a session that makes the room its current one only then.
    pub(crate) accepted: Option<oneshot::Sender<bool>>,
}

/// A room task's address.
#[derive(Clone)]
pub(crate) struct RoomHandle {
    pub(crate) id: RoomId,
    tx: mpsc::Sender<RoomMsg>,
}

impl RoomHandle {
    /// Sends a message; `false` when the room has closed.
    pub(crate) async fn send(&self, msg: RoomMsg) -> bool {
        self.tx.send(msg).await.is_ok()
    }

    /// Sends without waiting, for rooms messaging rooms (which must never wait on each
    /// other); `false` when the room has closed or its queue is full.
    pub(crate) fn try_send(&self, msg: RoomMsg) -> bool {
        self.tx.try_send(msg).is_ok()
    }

    /// An address that does not keep the room's queue open, for a task that outlives the
    /// room (`results`).
    pub(crate) fn weak(&self) -> mpsc::WeakSender<RoomMsg> {
        self.tx.downgrade()
    }
}

/// How many messages a room queues before senders wait.
const ROOM_QUEUE: usize = 256;

impl RoomHandle {
    /// A new address for room `id`, and the queue its task reads.
    pub(crate) fn new(id: RoomId) -> (RoomHandle, mpsc::Receiver<RoomMsg>) {
        let (tx, rx) = mpsc::channel(ROOM_QUEUE);
        (RoomHandle { id, tx }, rx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::room::bench_view;

    /// A queue's block holds 32 messages (tokio's mpsc); a block of at most 1,032 bytes is
    /// one glibc keeps in its per-thread cache, where a larger one takes its slow path at
    /// every room created. The rare kinds are boxed to keep it so.
    #[test]
    fn queued_messages_are_small_enough_for_a_cached_block() {
        const BLOCK_HEADER: usize = 32;
        for (what, size) in [
            ("RoomMsg", std::mem::size_of::<RoomMsg>()),
            ("ToSession", std::mem::size_of::<ToSession>()),
        ] {
            assert!(32 * size + BLOCK_HEADER <= 1032, "{what}: {size} bytes");
        }
    }

    /// Every reader's snapshot, written into its buffer from the shared head, is the text of
    /// the whole message for that reader (spectator or player, with or without a request id);
    /// in binary framing, likewise from the shared postcard head.
    #[test]
    fn each_readers_snapshot_is_the_whole_message_for_that_reader() {
        let view = bench_view();
        let seats = Arc::new(protocol::EncodedSeats::new(view.seats.clone()));
        let room = SharedRoom::new(view.clone(), seats);
        let whole = |id, you, framing| {
            ServerMsg::Room {
                id,
                room: Box::new(RoomView {
                    you,
                    ..view.clone()
                }),
            }
            .encode(framing)
        };
        let spectator = YouView {
            seat: None,
            host: false,
            to_move: false,
            requested: false,
        };
        let player = YouView {
            seat: Some(1),
            host: false,
            to_move: true,
            requested: false,
        };
        for (id, you) in [
            (None, spectator),
            (None, player),
            (Some(4), spectator),
            (Some(300), player),
        ] {
            let mut text = Vec::new();
            room.text_into(&mut text, id, you);
            let text = String::from_utf8(text).expect("UTF-8");
            assert_eq!(
                Frame::Text(text),
                whole(id, you, Framing::Text),
                "{id:?} {you:?}"
            );
            let mut bytes = Vec::new();
            room.binary_into(&mut bytes, id, you);
            assert_eq!(
                Frame::Binary(bytes),
                whole(id, you, Framing::Binary),
                "{id:?} {you:?}"
            );
        }
    }
}
