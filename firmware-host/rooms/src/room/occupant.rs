//! Who sits in a seat, and the seat itself.

use engine::Mark;
use protocol::Name;
use protocol::records::{PlayerRef, UserId};
use serde::{Deserialize, Serialize};

use super::member::{PlayerKey, guest_tag};

/// Who sits in a seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Occupant {
    Human { key: PlayerKey, name: String },
    Bot { difficulty: u8 },
    Local { name: String },
}

impl Occupant {
    pub(crate) fn player_ref(&self) -> PlayerRef {
        match self {
            Occupant::Human {
                key: PlayerKey::User(id),
                name,
            } => PlayerRef::User {
                id: *id,
                name: name.clone(),
            },
            Occupant::Human {
                key: PlayerKey::Guest(_),
                name,
            } => PlayerRef::Guest { name: name.clone() },
            Occupant::Bot { difficulty } => PlayerRef::Bot {
                difficulty: *difficulty,
            },
            Occupant::Local { name } => PlayerRef::Local { name: name.clone() },
        }
    }

    pub(crate) fn name(&self) -> String {
        match self {
            Occupant::Human { name, .. } | Occupant::Local { name } => name.clone(),
            Occupant::Bot { difficulty } => format!("Bot {difficulty}%"),
        }
    }

    /// The name as a kind the client words.
    pub(crate) fn name_kind(&self) -> Name {
        match self {
            Occupant::Human {
                key: PlayerKey::User(_),
                name,
            } => Name::Account { name: name.clone() },
            Occupant::Human {
                key: PlayerKey::Guest(id),
                ..
            } => Name::Guest { tag: guest_tag(id) },
            Occupant::Bot { difficulty } => Name::Bot {
                difficulty: *difficulty,
            },
            Occupant::Local { name } => Name::Local { name: name.clone() },
        }
    }

    /// Whether [`Occupant::name`] is `name`, without making it (the lobby row's check at
    /// every snapshot).
    pub(crate) fn is_named(&self, name: &str) -> bool {
        match self {
            Occupant::Human { name: own, .. } | Occupant::Local { name: own } => own == name,
            Occupant::Bot { .. } => self.name() == name,
        }
    }

    /// Whether [`Occupant::player_ref`] is `player`, without making it.
    pub(crate) fn is_player_ref(&self, player: &PlayerRef) -> bool {
        match (self, player) {
            (
                Occupant::Human {
                    key: PlayerKey::User(id),
                    name,
                },
                PlayerRef::User {
                    id: other,
                    name: other_name,
                },
            ) => id == other && name == other_name,
            (
                Occupant::Human {
                    key: PlayerKey::Guest(_),
                    name,
                },
                PlayerRef::Guest { name: other },
            )
            | (Occupant::Local { name }, PlayerRef::Local { name: other }) => name == other,
            (Occupant::Bot { difficulty }, PlayerRef::Bot { difficulty: other }) => {
                difficulty == other
            }
            _ => false,
        }
    }

    /// Whether [`Occupant::name_kind`] is `kind`, without making it.
    pub(crate) fn has_name_kind(&self, kind: &Name) -> bool {
        match (self, kind) {
            (
                Occupant::Human {
                    key: PlayerKey::User(_),
                    name,
                },
                Name::Account { name: other },
            )
            | (Occupant::Local { name }, Name::Local { name: other }) => name == other,
            (
                Occupant::Human {
                    key: PlayerKey::Guest(id),
                    ..
                },
                Name::Guest { tag },
            ) => guest_tag(id) == *tag,
            (Occupant::Bot { difficulty }, Name::Bot { difficulty: other }) => difficulty == other,
            _ => false,
        }
    }

    pub(crate) fn user(&self) -> Option<UserId> {
        match self {
            Occupant::Human {
                key: PlayerKey::User(id),
                ..
            } => Some(*id),
            _ => None,
        }
    }
}

/// One of the two seats.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Seat {
    pub occupant: Option<Occupant>,
    pub mark: Option<Mark>,
    pub ready: bool,
    /// The occupant's rating on this ladder, once loaded (online rooms).
    pub rating: Option<i32>,
}
