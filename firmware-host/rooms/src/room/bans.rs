//! M3.5: who was kicked from a room, by account, by browser (guest id) and by device token, so
//! that a kicked person cannot view or rejoin it signed out in the same browser either.

use std::collections::BTreeSet;

use super::member::{Member, PlayerKey};

/// The people banned from one room.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Bans {
    /// Accounts (`User`) and the guest ids of their browsers (`Guest`).
    pub(crate) keys: BTreeSet<PlayerKey>,
    pub(crate) devices: BTreeSet<String>,
}

impl Bans {
    /// Whether `member` is banned: by account, by their browser's guest id or device token.
    pub fn bans(&self, member: &Member) -> bool {
        if self.is_empty() {
            // Nearly every room: asked for every intent, so no key is built to find nothing.
            return false;
        }
        self.keys.contains(&member.key)
            || self
                .keys
                .iter()
                .any(|k| matches!(k, PlayerKey::Guest(g) if *g == member.guest_id))
            || member
                .device
                .as_ref()
                .is_some_and(|d| self.devices.contains(d))
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty() && self.devices.is_empty()
    }
}
