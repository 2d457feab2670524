//! The open actions as this server last wrote them, so that an executor's claim and
//! outcome are decided without reading the action back (in P8, re-reading every
//! reported action cost PostgreSQL a tenth of its time, and the server the JSON
//! decoding).
//!
//! A copy may be stale: another server (PostgreSQL) may have moved or deleted the
//! action. That is safe because every write is a compare-and-swap on the generation
//! the copy holds: a stale move loses it, the copy is forgotten, and the retry reads
//! the database. What a copy cannot protect is a decision that writes nothing (a
//! refusal, a repeated report), so those are decided again from the database (see
//! `write::read_and_decide`).

use std::collections::HashMap;
use std::sync::Mutex;

use crate::ids::ActionId;
use crate::store::action::ActionRecord;

/// Copies kept at most; past it, new actions are read from the database as before.
const CAPACITY: usize = 100_000;

#[derive(Default)]
pub(super) struct OpenActions {
    copies: Mutex<HashMap<ActionId, ActionRecord>>,
}

impl OpenActions {
    /// The copies of `ids` this server holds.
    pub(super) fn get_many(&self, ids: &[ActionId]) -> HashMap<ActionId, ActionRecord> {
        let copies = self.copies.lock().expect("open actions lock");
        ids.iter()
            .filter_map(|id| copies.get(id).map(|a| (*id, a.clone())))
            .collect()
    }

    /// `action` as just written: kept while open, forgotten once finished. A copy
    /// that is already newer (a group that committed later updated it first) stays.
    pub(super) fn written(&self, action: &ActionRecord) {
        let mut copies = self.copies.lock().expect("open actions lock");
        if action.state.is_finished() {
            copies.remove(&action.id);
            return;
        }
        let room = copies.len() < CAPACITY;
        match copies.get_mut(&action.id) {
            Some(copy) if copy.generation >= action.generation => {}
            Some(copy) => *copy = action.clone(),
            None if room => {
                copies.insert(action.id, action.clone());
            }
            None => {}
        }
    }

    /// Forgets the copies of `ids`: the next change reads them from the database.
    pub(super) fn forget(&self, ids: impl IntoIterator<Item = ActionId>) {
        let mut copies = self.copies.lock().expect("open actions lock");
        for id in ids {
            copies.remove(&id);
        }
    }

    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.copies.lock().expect("open actions lock").len()
    }
}
