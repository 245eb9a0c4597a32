//! Who sends intents: a connection of a person, a registered player or a guest.

use protocol::records::UserId;
use serde::{Deserialize, Serialize};

use crate::persistence::Identity;

/// A connection's id, unique for the hub's lifetime.
pub type ConnId = u64;

/// Who a person is across connections: a registered player, or a guest by their cookie id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum PlayerKey {
    User(UserId),
    Guest(String),
}

/// The sender of an intent: one connection of one person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub conn: ConnId,
    pub key: PlayerKey,
    /// The name shown for this person.
    pub name: String,
}

impl Member {
    pub fn from_identity(conn: ConnId, identity: &Identity) -> Member {
        match &identity.account {
            Some(account) => Member {
                conn,
                key: PlayerKey::User(account.id),
                name: account.name.clone(),
            },
            None => Member {
                conn,
                key: PlayerKey::Guest(identity.guest_id.clone()),
                name: guest_name(&identity.guest_id),
            },
        }
    }

    pub fn user(&self) -> Option<UserId> {
        match self.key {
            PlayerKey::User(id) => Some(id),
            PlayerKey::Guest(_) => None,
        }
    }
}

/// The name shown for a guest: "Guest" and the first characters of their anonymous id.
pub fn guest_name(guest_id: &str) -> String {
    let tag: String = guest_id
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(4)
        .collect();
    if tag.is_empty() {
        "Guest".to_owned()
    } else {
        format!("Guest {tag}")
    }
}
