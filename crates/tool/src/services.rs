//! What a session's tools share, by type: each feature's state (the shell's background jobs,
//! the task board, the editor's buffers, the language servers) is put in by whoever builds the
//! [`crate::ToolContext`] and read by that feature's own tools. The seam knows none of them,
//! so implementing [`crate::Tool`] needs no feature.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// A feature's state kept in [`Services`]: a handle (cheap to clone, clones share the state)
/// whose `Default` is the state of a context nobody gave one (a test's, `rein tool`'s).
pub trait Service: Clone + Default + Send + Sync + 'static {}

impl<T: Clone + Default + Send + Sync + 'static> Service for T {}

type Slots = HashMap<TypeId, Arc<dyn Any + Send + Sync>>;

/// The services of a context, by type. Clones share them: what one clone puts in (or gets
/// fresh) every other clone sees.
#[derive(Clone, Default)]
pub struct Services {
    slots: Arc<Mutex<Slots>>,
}

impl Services {
    /// The `T` these services hold; a fresh one, kept from then on, when none was put in.
    pub fn get<T: Service>(&self) -> T {
        let mut slots = self.lock();
        let slot = slots
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Arc::new(T::default()));
        match slot.downcast_ref::<T>() {
            Some(value) => value.clone(),
            // Unreachable: a slot holds the type it is keyed by. Kept total rather than
            // panicking.
            None => T::default(),
        }
    }

    /// Puts `value` in as these services' `T`, for every clone.
    pub fn put<T: Service>(&self, value: T) {
        self.lock().insert(TypeId::of::<T>(), Arc::new(value));
    }

    fn lock(&self) -> MutexGuard<'_, Slots> {
        self.slots.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl std::fmt::Debug for Services {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Services({} kept)", self.lock().len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Default)]
    struct Counter(Arc<std::sync::atomic::AtomicU32>);

    fn bump(c: &Counter) -> u32 {
        c.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1
    }

    #[test]
    fn clones_share_a_service_and_what_is_put_in() {
        let services = Services::default();
        let clone = services.clone();
        assert_eq!(bump(&services.get::<Counter>()), 1);
        assert_eq!(
            bump(&clone.get::<Counter>()),
            2,
            "a clone sees the same state"
        );
        clone.put(Counter::default());
        assert_eq!(
            bump(&services.get::<Counter>()),
            1,
            "what a clone puts in, every clone sees"
        );
    }
}
