//! Who sends intents: a connection of a person, a registered player or a guest.

use protocol::Name;
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
    /// The browser's anonymous id (the guest cookie), signed in or not: a kick bans it too.
    pub guest_id: String,
    /// The browser's device token, if it has one: a kick bans it too (M3.5).
    pub device: Option<String>,
}

impl Member {
    pub fn from_identity(conn: ConnId, identity: &Identity) -> Member {
        match &identity.account {
            Some(account) => Member {
                conn,
                key: PlayerKey::User(account.id),
                name: account.name.clone(),
                guest_id: identity.guest_id.clone(),
                device: identity.device.clone(),
            },
            None => Member {
                conn,
                key: PlayerKey::Guest(identity.guest_id.clone()),
                name: guest_name(&identity.guest_id),
                guest_id: identity.guest_id.clone(),
                device: identity.device.clone(),
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

/// A few characters of a guest's anonymous id, to tell guests apart.
pub fn guest_tag(guest_id: &str) -> String {
    guest_id
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(4)
        .collect()
}

/// The name shown for a guest in English: "Guest" and their tag.
pub fn guest_name(guest_id: &str) -> String {
    let tag = guest_tag(guest_id);
    if tag.is_empty() {
        "Guest".to_owned()
    } else {
        format!("Guest {tag}")
    }
}

impl Member {
    /// This person's name as a kind the client words.
    pub fn name_kind(&self) -> Name {
        match &self.key {
            PlayerKey::User(_) => Name::Account {
                name: self.name.clone(),
            },
            PlayerKey::Guest(id) => Name::Guest { tag: guest_tag(id) },
        }
    }
}
